// Next-edit suggestions: after an edit, ask the server (`tandem/nextEdit`) for the edit the user
// is about to make anywhere in the file. It shows as an inline diff decoration with a "Tab" hint;
// Tab jumps there, Tab again applies it, Escape dismisses. Accepting feeds the server's history,
// so a chain of edits goes Tab, Tab, Tab. Shown / accepted / rejected go to the local stats.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, State } from 'vscode-languageclient/node';

interface Suggestion { uri: string; range: vscode.Range; newText: string; version: number; jumped: boolean }

const DEBOUNCE_MS = 250;
let current: Suggestion | undefined;
let timer: NodeJS.Timeout | undefined;
let applying = false;
let getClient: () => LanguageClient | undefined = () => undefined;

const oldText = vscode.window.createTextEditorDecorationType({
  backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
  textDecoration: 'line-through',
});
const newText = vscode.window.createTextEditorDecorationType({});

function report(command: string) {
  const client = getClient();
  if (client && client.state === State.Running) {
    client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [] }).then(undefined, () => undefined);
  }
}

function clear(reason?: 'rejected') {
  if (current && reason) report('tandem.didRejectNextEdit');
  current = undefined;
  for (const editor of vscode.window.visibleTextEditors) {
    editor.setDecorations(oldText, []);
    editor.setDecorations(newText, []);
  }
  void vscode.commands.executeCommand('setContext', 'tandem.nextEditVisible', false);
}

function show(editor: vscode.TextEditor, s: Suggestion) {
  current = s;
  const hint = s.jumped ? '  ⇥ Tab to apply' : '  ⇥ Tab to jump here';
  editor.setDecorations(oldText, s.range.isEmpty ? [] : [s.range]);
  editor.setDecorations(newText, [{
    range: new vscode.Range(s.range.end, s.range.end),
    renderOptions: { after: { contentText: `${s.newText.replace(/\n/g, '⏎')}${hint}`,
      color: new vscode.ThemeColor('editorGhostText.foreground'), fontStyle: 'italic',
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground') } },
  }]);
  void vscode.commands.executeCommand('setContext', 'tandem.nextEditVisible', true);
}

async function request(editor: vscode.TextEditor) {
  const client = getClient();
  if (!client || client.state !== State.Running) return;
  const doc = editor.document;
  const version = doc.version;
  const pos = editor.selection.active;
  try {
    const r: any = await client.sendRequest('tandem/nextEdit', {
      textDocument: { uri: doc.uri.toString() }, position: { line: pos.line, character: pos.character } });
    if (!r || doc.version !== version || vscode.window.activeTextEditor !== editor) return;  // stale: drop it
    const range = new vscode.Range(r.range.start.line, r.range.start.character, r.range.end.line, r.range.end.character);
    show(editor, { uri: doc.uri.toString(), range, newText: r.newText, version, jumped: false });
    report('tandem.didShowNextEdit');
  } catch {
    /* the server may be restarting: no suggestion */
  }
}

async function tab() {
  const editor = vscode.window.activeTextEditor;
  const s = current;
  if (!editor || !s || editor.document.uri.toString() !== s.uri || editor.document.version !== s.version) {
    clear();
    await vscode.commands.executeCommand('tab');  // nothing to jump to after all: Tab is Tab
    return;
  }
  if (!s.jumped && !editor.selection.active.isEqual(s.range.start)) {
    editor.selection = new vscode.Selection(s.range.start, s.range.start);
    editor.revealRange(s.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    show(editor, { ...s, jumped: true });
    return;
  }
  applying = true;
  try {
    const ok = await editor.edit((b) => b.replace(s.range, s.newText));
    if (ok) {
      report('tandem.didAcceptNextEdit');
      const end = editor.document.positionAt(editor.document.offsetAt(s.range.start) + s.newText.length);
      editor.selection = new vscode.Selection(end, end);
    }
  } finally {
    applying = false;
    clear();
  }
  schedule(editor);  // the accepted edit is history now: ask for the next one in the chain
}

function schedule(editor: vscode.TextEditor | undefined) {
  if (timer) clearTimeout(timer);
  if (!editor) return;
  timer = setTimeout(() => void request(editor), DEBOUNCE_MS);
}

export function registerNextEdit(ctx: vscode.ExtensionContext, client: () => LanguageClient | undefined) {
  getClient = client;
  ctx.subscriptions.push(
    oldText, newText,
    vscode.commands.registerCommand('tandem.ui.nextEditTab', tab),
    vscode.commands.registerCommand('tandem.ui.nextEditDismiss', () => clear('rejected')),
    vscode.workspace.onDidChangeTextDocument((e) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || e.document !== editor.document || e.contentChanges.length === 0 || applying) return;
      if (current) clear('rejected');  // the user typed something else: the suggestion is stale
      schedule(editor);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => clear()),
  );
}
