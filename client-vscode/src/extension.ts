// Tandem's VS Code client: starts `tandem serve`, shows its inline completions (ghost text),
// reports shown/accepted suggestions to the server's local stats, and offers the palette commands.
// Command ids are `tandem.ui.*`: the language client registers the server's own `tandem.*`
// commands itself, and the two must not collide.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, ExecuteCommandRequest, LanguageClient, LanguageClientOptions,
  RevealOutputChannelOn, ServerOptions, State,
} from 'vscode-languageclient/node';
import { registerNextEdit } from './nextEdit';

/** Keys kept in VS Code secret storage and handed to the server in its environment: never in
 * settings, never logged. */
const SECRETS = [
  { id: 'tandem.anthropicApiKey', env: 'ANTHROPIC_API_KEY', command: 'tandem.ui.setApiKey',
    prompt: 'Anthropic API key (kept in VS Code secret storage)', name: 'API key' },
  { id: 'tandem.backendApiKey', env: 'TANDEM_BACKEND_API_KEY', command: 'tandem.ui.setBackendApiKey',
    prompt: 'API key of your inference server (tandem.backend; kept in VS Code secret storage)', name: 'backend API key' },
];
const CLIENT_ONLY = new Set(['serverCommand']);
const MAX_RESTARTS = 3;

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;
let poller: NodeJS.Timeout | undefined;
let restartTimes: number[] = [];
let stopping = false;
let startFailureShown = false;

function log(msg: string) {
  output.info(msg);
}

function onPath(exe: string): string | undefined {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const candidate = path.join(dir, exe);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch { /* not here */ }
  }
  return undefined;
}

async function serverCommand(): Promise<string[]> {
  const configured = vscode.workspace.getConfiguration('tandem').get<string[]>('serverCommand') || [];
  if (configured.length) return configured;
  const tandem = onPath('tandem');
  if (tandem) return [tandem, 'serve'];
  const py = vscode.extensions.getExtension('ms-python.python');
  const exec: string[] | undefined = py?.isActive ? py.exports?.settings?.getExecutionDetails?.()?.execCommand : undefined;
  if (exec && exec.length) return [...exec, '-m', 'lsp_server', 'serve'];
  return ['python3', '-m', 'lsp_server', 'serve'];
}

// Every setting the extension declares (package.json, generated from the server's schema in
// lsp_server/config.py), as the server would get it on a change (`synchronize` sends the section).
function serverSettings(ctx: vscode.ExtensionContext): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('tandem');
  const declared = Object.keys(ctx.extension.packageJSON.contributes.configuration.properties);
  const out: Record<string, unknown> = {};
  for (const name of declared) {
    const key = name.slice('tandem.'.length);
    if (key !== 'serverCommand') out[key] = cfg.get(key);  // the client's own
  }
  return out;
}

function setStatus(text: string, tooltip: string) {
  status.text = text;
  status.tooltip = tooltip;
}

async function serverStatus(): Promise<any | undefined> {
  if (!client || client.state !== State.Running) return undefined;
  return client.sendRequest(ExecuteCommandRequest.type, { command: 'tandem.status', arguments: [] });
}

async function refreshStatus() {
  try {
    const st = await serverStatus();
    if (!st) return;
    const enabled = vscode.workspace.getConfiguration('tandem').get<boolean>('enable');
    const last = st.stats?.recent_latency_ms?.last;
    if (!enabled) setStatus('$(circle-slash) Tandem', 'Inline completions are off (Tandem: Toggle inline completions)');
    else if (st.engine === 'ready') setStatus(`$(sparkle) Tandem${last != null ? ` ${Math.round(last)} ms` : ''}`, `${servedBy(st)} ready${st.device_note ? ` — ${st.device_note}` : ''}`);
    else if (st.engine === 'error') setStatus('$(error) Tandem', `Model not loaded: ${st.error}`);
    else setStatus('$(loading~spin) Tandem', `Loading ${st.settings?.model ?? 'model'}…`);
  } catch (err) {
    log(`status failed: ${err}`);
  }
}

function notify(command: string, args: unknown[] = []) {
  if (client && client.state === State.Running) {
    client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }).then(undefined, (e) => log(`${command}: ${e}`));
  }
}

// The document version Tandem's last suggestion was shown for: a partial accept in that version
// takes from Tandem's suggestion (another extension's would be shown for another request).
let lastShown: { uri: string; version: number } | undefined;

// Partial accept: VS Code inserts the next word or line of the suggestion on screen; the item's
// command only runs on a whole accept, so the keys come here first to count it.
async function acceptPart(kind: 'word' | 'line') {
  const doc = vscode.window.activeTextEditor?.document;
  const ours = !!doc && !!lastShown && lastShown.uri === doc.uri.toString() && lastShown.version === doc.version;
  await vscode.commands.executeCommand(kind === 'word' ? 'editor.action.inlineSuggest.acceptNextWord'
    : 'editor.action.inlineSuggest.acceptNextLine');
  if (ours) notify('tandem.didAcceptCompletion', [{ partial: kind }]);
}

function showStartFailure(cmd: string[], why: string) {
  setStatus('$(error) Tandem', `Could not start: ${cmd.join(' ')}`);
  log(`could not start ${cmd.join(' ')}: ${why}`);
  if (startFailureShown) return;  // one notification, no storm
  startFailureShown = true;
  vscode.window.showErrorMessage(
    `Tandem: could not start the language server (${cmd.join(' ')}: ${why}). Install Tandem (run \`bash .ci/demo\` in its repository) and set "tandem.serverCommand" to [".../.venv/bin/tandem", "serve"].`,
    'Open Settings').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'tandem.serverCommand');
    });
}

function executable(exe: string): boolean {
  if (!exe.includes(path.sep)) return onPath(exe) !== undefined;
  try {
    fs.accessSync(exe, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function start(ctx: vscode.ExtensionContext) {
  const cmd = await serverCommand();
  if (!executable(cmd[0])) {
    // checked here so the user sees our message with the fix, not the client library's own
    showStartFailure(cmd, 'not found or not executable');
    return;
  }
  const env = { ...process.env };
  for (const secret of SECRETS) {
    const key = env[secret.env] ? undefined : await ctx.secrets.get(secret.id);
    if (key) env[secret.env] = key;  // never logged
  }
  const serverOptions: ServerOptions = { command: cmd[0], args: cmd.slice(1), options: { env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,  // completion errors never pop up
    initializationOptions: { tandem: serverSettings(ctx) },
    synchronize: { configurationSection: 'tandem' },
    middleware: {
      provideInlineCompletionItems: async (document, position, context, token, next) => {
        try {
          const result = await next(document, position, context, token);
          const items = Array.isArray(result) ? result : result?.items ?? [];
          if (items.length) {
            lastShown = { uri: document.uri.toString(), version: document.version };
            notify('tandem.didShowCompletion');
            for (const item of items) item.command = { title: 'Tandem: accepted', command: 'tandem.ui.accepted' };
          }
          return result;
        } catch (err) {
          log(`inline completion failed: ${err}`);
          return null;
        }
      },
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        if (stopping) return { action: CloseAction.DoNotRestart, handled: true };
        const now = Date.now();
        restartTimes = restartTimes.filter((t) => now - t < 180_000);
        if (restartTimes.length >= MAX_RESTARTS) {
          setStatus('$(error) Tandem', 'The server keeps stopping; see the Tandem output');
          vscode.window.showErrorMessage('Tandem: the language server stopped 3 times in 3 minutes and will not be restarted. See the "Tandem" output, then run "Tandem: Restart language server".');
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        restartTimes.push(now);
        const delay = 1000 * 2 ** (restartTimes.length - 1);
        setStatus('$(sync~spin) Tandem', `Server stopped; restarting in ${delay / 1000}s`);
        log(`server stopped; restarting in ${delay} ms`);
        vscode.window.setStatusBarMessage(`Tandem: server stopped, restarting (${restartTimes.length}/${MAX_RESTARTS})`, 5000);
        setTimeout(() => { void restart(ctx); }, delay);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  client = new LanguageClient('tandem', 'Tandem', serverOptions, clientOptions);
  log(`starting: ${cmd.join(' ')}`);
  try {
    await client.start();
    startFailureShown = false;
  } catch (err) {
    showStartFailure(cmd, err instanceof Error ? err.message : String(err));
    client = undefined;
  }
}

async function restart(ctx: vscode.ExtensionContext) {
  const old = client;
  client = undefined;
  if (old) {
    stopping = true;
    try { await old.stop(2000); } catch { /* already gone */ }
    stopping = false;
  }
  await start(ctx);
}

export async function activate(ctx: vscode.ExtensionContext) {
  output = vscode.window.createOutputChannel('Tandem', { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = 'tandem.ui.showStatus';
  setStatus('$(loading~spin) Tandem', 'Starting…');
  status.show();
  ctx.subscriptions.push(output, status);

  ctx.subscriptions.push(
    vscode.commands.registerCommand('tandem.ui.accepted', () => notify('tandem.didAcceptCompletion')),
    vscode.commands.registerCommand('tandem.ui.acceptNextWord', () => acceptPart('word')),
    vscode.commands.registerCommand('tandem.ui.acceptNextLine', () => acceptPart('line')),
    vscode.commands.registerCommand('tandem.ui.toggle', async () => {
      const cfg = vscode.workspace.getConfiguration('tandem');
      await cfg.update('enable', !cfg.get<boolean>('enable'), vscode.ConfigurationTarget.Global);
      await refreshStatus();
    }),
    vscode.commands.registerCommand('tandem.ui.showStatus', async () => {
      const st = await serverStatus().catch(() => undefined);
      if (!st) {
        vscode.window.showWarningMessage('Tandem: the language server is not running. See the "Tandem" output.');
        return;
      }
      const s = st.stats || {};
      const lat = s.recent_latency_ms?.p50 != null ? `${Math.round(s.recent_latency_ms.p50)} ms median` : 'no requests yet';
      const acc = s.shown ? `${s.shown} shown, ${s.accepted} accepted, ${s.partially_accepted ?? 0} partly accepted` : 'no suggestions shown yet';
      vscode.window.showInformationMessage(`Tandem: ${servedBy(st)} — engine ${st.engine}; ${lat}; ${acc}.`);
    }),
    vscode.commands.registerCommand('tandem.ui.planChange', async () => {
      const instruction = await vscode.window.showInputBox({ prompt: 'Tandem: describe the change to plan', ignoreFocusOut: true });
      if (!instruction) return;
      const editor = vscode.window.activeTextEditor;
      const args = { instruction, uri: editor?.document.uri.toString(), range: editor && !editor.selection.isEmpty ? client?.code2ProtocolConverter.asRange(editor.selection) : undefined };
      await runServerCommand('tandem.planChange', args, 'planning a change');
    }),
    vscode.commands.registerCommand('tandem.ui.indexWorkspace', () => runServerCommand('tandem.indexWorkspace', {}, 'indexing the workspace')),
    ...SECRETS.map((secret) => vscode.commands.registerCommand(secret.command, async () => {
      const key = await vscode.window.showInputBox({ prompt: secret.prompt, password: true, ignoreFocusOut: true });
      if (!key) return;
      await ctx.secrets.store(secret.id, key.trim());
      vscode.window.showInformationMessage(`Tandem: ${secret.name} stored; restarting the server to use it.`);
      await restart(ctx);
    })),
    vscode.commands.registerCommand('tandem.ui.restartServer', async () => {
      restartTimes = [];
      await restart(ctx);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tandem.serverCommand')) void restart(ctx);
      else if (e.affectsConfiguration('tandem')) void refreshStatus();
    }),
  );
  registerNextEdit(ctx, () => client);
  await start(ctx);
  poller = setInterval(() => { void refreshStatus(); }, 2000);
}

async function runServerCommand(command: string, arg: unknown, what: string) {
  if (!client || client.state !== State.Running) {
    vscode.window.showWarningMessage('Tandem: the language server is not running. See the "Tandem" output.');
    return;
  }
  const advertised = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  if (!advertised.includes(command)) {
    vscode.window.showInformationMessage(`Tandem: ${what} is not available in this server version yet.`);
    return;
  }
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
    if (result?.message) vscode.window.showInformationMessage(`Tandem: ${result.message}`);
  } catch (err) {
    log(`${command} failed: ${err}`);
    vscode.window.showErrorMessage(`Tandem: ${what} failed: ${err instanceof Error ? err.message : err}`);
  }
}

export async function deactivate() {
  if (poller) clearInterval(poller);
  stopping = true;
  if (client) await client.stop();
}

/** What serves completions, from tandem.status: the local model, or a remote backend (a team's
 * inference server), or the local model standing in for a backend that failed. */
function servedBy(st: any): string {
  const local = `${st.model ?? st.settings?.model} (${st.precision ?? st.settings?.precision}) on ${st.device ?? 'cpu'}`;
  if (!st.backend || st.backend === 'local') return local;
  if (String(st.backend).startsWith('local')) return `${local}; ${st.backend}`;
  return `${st.backend_model ?? 'model'} via ${st.backend}`;
}
