// The Arazzo extension: starts `arazzo lsp` (the command of the `arazzo.server.path` and
// `arazzo.server.args` settings) over stdio for the Arazzo documents, through vscode-languageclient.
// Everything the editor shows (diagnostics, completion, navigation, hover, quick fixes) is the
// server's; this file only starts it, restarts it when its settings change, and shows what
// "Run workflow" returns.
'use strict';

const path = require('path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

const SELECTOR = [
  { scheme: 'file', language: 'arazzo-yaml' },
  { scheme: 'file', language: 'arazzo-json' },
  { scheme: 'untitled', language: 'arazzo-yaml' },
  { scheme: 'untitled', language: 'arazzo-json' },
];

let client;
let output;

/** The server's command and arguments from the settings (a relative path read from the first
 * workspace folder, as a `.venv/bin/arazzo`). */
function serverOptions() {
  const config = vscode.workspace.getConfiguration('arazzo');
  let command = config.get('server.path') || 'arazzo';
  const args = config.get('server.args') || ['lsp'];
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (folder && command.includes('/') && !path.isAbsolute(command)) {
    command = path.join(folder.uri.fsPath, command);
  }
  const cwd = folder ? folder.uri.fsPath : undefined;
  return { command, args, options: { cwd } };
}

/** `arazzo.runWorkflow` (the "Run workflow" code action) returns the run's summary: show it. */
async function executeCommand(command, args, next) {
  const result = await next(command, args);
  if (command === 'arazzo.runWorkflow' && result) {
    output.appendLine(`arazzo.runWorkflow ${args[1]}: ${JSON.stringify(result, null, 2)}`);
    output.show(true);
    const status = result.status === 'error' ? `error: ${result.error}` : result.status;
    vscode.window.showInformationMessage(`Workflow ${args[1]}: ${status}`);
  }
  return result;
}

async function start() {
  client = new LanguageClient('arazzo', 'Arazzo', serverOptions(), {
    documentSelector: SELECTOR,
    outputChannel: output,
    middleware: { executeCommand },
  });
  await client.start();
}

async function restart() {
  if (client) {
    await client.stop();
  }
  await start();
}

async function activate(context) {
  output = vscode.window.createOutputChannel('Arazzo');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('arazzo.restartServer', restart),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('arazzo.server')) {
        restart();
      }
    }),
  );
  try {
    await start();
  } catch (error) {
    const { command, args } = serverOptions();
    vscode.window.showErrorMessage(
      `Arazzo: cannot start \`${[command, ...args].join(' ')}\` (${error.message}): ` +
        'set "arazzo.server.path" (and "arazzo.server.args").',
    );
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, SELECTOR };
