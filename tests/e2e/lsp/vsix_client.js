// Drives `arazzo lsp` with the LSP libraries the .vsix bundles (vscode-jsonrpc and
// vscode-languageserver-protocol, which vscode-languageclient speaks through), the server started
// with the command and arguments of the extension's settings' defaults (package.json).
// Usage: node vsix_client.js EXTENSION_FOLDER DOCUMENT; prints one JSON line: the diagnostics
// published for DOCUMENT, the hover at its `operationId: getPet`, the server's name.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

const [extension, document] = process.argv.slice(2);
const modules = path.join(extension, 'node_modules');
const rpc = require(path.join(modules, 'vscode-jsonrpc', 'node'));
const protocol = require(path.join(modules, 'vscode-languageserver-protocol', 'node'));
const manifest = JSON.parse(fs.readFileSync(path.join(extension, 'package.json'), 'utf8'));
const settings = manifest.contributes.configuration.properties;
const command = settings['arazzo.server.path'].default;
const args = settings['arazzo.server.args'].default;

async function main() {
  const server = spawn(command, args, { cwd: path.dirname(document), stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin),
  );
  const uri = 'file://' + document;
  const diagnostics = new Promise((resolve) => {
    connection.onNotification(protocol.PublishDiagnosticsNotification.type, (params) => {
      if (params.uri === uri) resolve(params.diagnostics);
    });
  });
  connection.listen();
  const init = await connection.sendRequest(protocol.InitializeRequest.type, {
    processId: process.pid,
    rootUri: 'file://' + path.dirname(document),
    capabilities: {},
  });
  connection.sendNotification(protocol.InitializedNotification.type, {});
  const text = fs.readFileSync(document, 'utf8');
  connection.sendNotification(protocol.DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'arazzo-yaml', version: 1, text },
  });
  const published = await diagnostics;
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes('operationId: getPet'));
  const character = lines[line].indexOf('getPet') + 2;
  const hover = await connection.sendRequest(protocol.HoverRequest.type, {
    textDocument: { uri },
    position: { line, character },
  });
  await connection.sendRequest(protocol.ShutdownRequest.type);
  connection.sendNotification(protocol.ExitNotification.type);
  console.log(JSON.stringify({ server: init.serverInfo, diagnostics: published, hover }));
  connection.dispose();
  process.exit(0);
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : String(error));
  process.exit(1);
});
