// Driven by tests/e2e/test_vscode.py: code-server (a real VS Code) in Debian's Chromium, with
// the Tandem extension and the real local model. Prints one JSON line with what it saw.
import { chromium } from 'playwright-core';
import { execFileSync } from 'child_process';
import fs from 'fs';
import path from 'path';

const { URL_TO_OPEN, FILE, ARTIFACTS, SCENARIO } = process.env;
const result = { steps: [] };
const step = (s) => { result.steps.push(s); console.error(`[e2e] ${s}`); };

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const shot = (name) => page.screenshot({ path: path.join(ARTIFACTS, name) });

async function ghostAfterTyping(retypeTimeoutMs) {
  // a keystroke asks for a suggestion; retype the last character until one shows (the server
  // may still be loading its model, and then answers with nothing)
  const deadline = Date.now() + retypeTimeoutMs;
  while (Date.now() < deadline) {
    const el = await page.waitForSelector('.ghost-text-decoration, .ghost-text', { timeout: 3000 }).catch(() => null);
    if (el) return page.$$eval('.ghost-text-decoration, .ghost-text', (els) => els.map((e) => e.textContent).join(''));
    await page.keyboard.press('Backspace');
    await page.keyboard.type('(', { delay: 50 });
  }
  throw new Error('no ghost text after typing');
}

// the status bar says the server is up and the model ready. Keystrokes made before the server
// started are not edits it saw: the next-edit history begins at didOpen.
const serverReady = () => page.waitForFunction(() => [...document.querySelectorAll('.statusbar-item')]
  .some((e) => /Tandem/.test(e.textContent || '') && /ready/.test(e.getAttribute('aria-label') + ' ' + (e.getAttribute('title') || '') + ' ' + (e.querySelector('[aria-label]')?.getAttribute('aria-label') || ''))
    || /Tandem \d+ ms/.test(e.textContent || '')), null, { timeout: 240000 }).catch(() => step('status bar did not say ready (continuing)'));

try {
  await page.goto(URL_TO_OPEN);
  await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
  step('workbench');
  // open the file through Quick Open, as a person would
  await page.waitForTimeout(2000);
  await page.keyboard.press('Control+p');
  await page.waitForSelector('.quick-input-widget input', { timeout: 30000 });
  await page.keyboard.type(path.basename(FILE));
  // Enter before the file search has answered opens nothing: wait for the result row
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 30000 });
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.monaco-editor .view-lines', { timeout: 60000 });
  step('editor');
  if (SCENARIO === 'bad-command') {
    await page.waitForSelector('.notification-toast', { timeout: 60000 });
    await page.waitForTimeout(2000);
    result.notifications = await page.$$eval('.notification-toast', (els) => els.map((e) => e.textContent));
    await shot('vscode-bad-command.png');
    result.ok = true;
    throw null;
  }
  if (SCENARIO === 'next-edit') {
    await serverReady();
    // rename the first call by hand: line 2 is "    a = compute(n)"
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');  // before "(n)"
    for (let i = 0; i < 7; i++) await page.keyboard.press('Shift+ArrowLeft');  // select "compute"
    await page.keyboard.type('calculate', { delay: 60 });
    step('renamed');
    // the suggestion is an `after` decoration: its text lives in a CSS ::after rule, not in the DOM text
    const decorated = (re) => [...document.querySelectorAll('.monaco-editor .view-lines span')]
      .map((e) => getComputedStyle(e, '::after').content).find((c) => new RegExp(re).test(c || '')) || '';
    const waitHint = (re, timeout) => page.waitForFunction(decorated, re, { timeout }).then(() => page.evaluate(decorated, re));
    const hint = () => waitHint('Tab to (jump|apply)', 60000);
    result.hint = await hint();
    await shot('vscode-next-edit.png');
    step('suggested');
    for (let n = 0; n < 2; n++) {  // two more call sites: Tab (jump), Tab (apply)
      await page.keyboard.press('Tab');
      await waitHint('Tab to apply', 30000);
      await page.keyboard.press('Tab');
      step(`applied ${n + 1}`);
      if (n === 0) {
        await page.waitForTimeout(1000);  // the old decoration goes, the next suggestion arrives
        await waitHint('Tab to jump', 30000);
      }
    }
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+s');
    const until = Date.now() + 30000;
    while (Date.now() < until && (fs.readFileSync(FILE, 'utf8').match(/calculate/g) || []).length < 3) await page.waitForTimeout(200);
    step('saved');
    result.ok = true;
    throw null;
  }
  if (SCENARIO === 'plan') {
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { timeout: 30000 });
    await page.keyboard.type('Tandem: Plan a change');
    await page.waitForTimeout(800);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(800);  // the palette gives way to the instruction box
    await page.keyboard.type('add a docstring to fib', { delay: 20 });
    await page.keyboard.press('Enter');
    step('instruction given');
    await page.waitForFunction(() => /Fibonacci/.test(document.querySelector('.monaco-editor .view-lines')?.textContent || ''),
      null, { timeout: 120000 });
    step('edit applied');
    await page.waitForSelector('.notification-toast', { timeout: 30000 });
    result.notification = await page.$$eval('.notification-toast', (els) => els.map((e) => e.textContent).join('\n'));
    await shot('vscode-plan.png');
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('Control+s');
    const until = Date.now() + 30000;
    while (Date.now() < until && !/Fibonacci/.test(fs.readFileSync(FILE, 'utf8'))) await page.waitForTimeout(200);
    step('saved');
    result.ok = true;
    throw null;
  }
  await serverReady();
  // a clean start: the server read every setting and loaded its model without a word to the user
  await page.waitForTimeout(2000);
  result.start_notifications = await page.$$eval('.notification-toast', (els) => els.map((e) => e.textContent));
  await shot('vscode-clean-start.png');
  step('clean start');
  await page.click('.monaco-editor .view-lines');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('    return ', { delay: 120 });
  step('typed');
  await page.waitForSelector('.ghost-text-decoration, .ghost-text', { timeout: 120000 });
  await page.waitForTimeout(300);
  const ghostNow = () => page.$$eval('.ghost-text-decoration, .ghost-text', (els) => els.map((e) => e.textContent).join(''));
  result.ghost = await ghostNow();
  await shot('vscode-ghost-text.png');
  step('ghost text');
  // partial accept: the next word goes into the line, the rest stays on screen; Tab takes the rest
  await page.keyboard.press('Control+ArrowRight');
  await page.waitForTimeout(500);
  // the line typed into: "    return …" (the file's own "        return n" is indented deeper)
  result.line_after_word = await page.$$eval('.monaco-editor .view-line', (els) => els.map((e) => (e.textContent || '').replace(/\u00a0/g, ' '))
    .find((t) => /^ {4}return/.test(t)) || '');
  result.ghost_after_word = await ghostNow();
  step('accepted the next word');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+s');
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline && !/return \S/.test(fs.readFileSync(FILE, 'utf8'))) await page.waitForTimeout(200);
  result.saved = fs.readFileSync(FILE, 'utf8');
  step('saved');
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { timeout: 30000 });
  await page.keyboard.type('Tandem: Show status');
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.notification-toast', { timeout: 30000 });
  await page.waitForTimeout(500);
  result.notification = await page.$$eval('.notification-toast', (els) => els.map((e) => e.textContent).join('\n'));
  await shot('vscode-status.png');
  step('status');
  // the server dies mid-session: the extension restarts it and completions resume
  await page.keyboard.press('Escape');
  execFileSync('pkill', ['-f', 'lsp_server serve']);
  step('server killed');
  await page.click('.monaco-editor .view-lines');
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.keyboard.type('print(fib(', { delay: 100 });
  result.ghost_after_restart = await ghostAfterTyping(120000);
  step('ghost text after restart');
  result.ok = true;
} catch (err) {
  if (err !== null) {
    result.ok = false;
    result.error = String(err);
    await shot('failure.png').catch(() => {});
  }
} finally {
  await browser.close();
  console.log(JSON.stringify(result));
}
