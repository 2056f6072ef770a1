// The Muster extension: highlighting comes from the TextMate grammar; this
// starts `muster lsp` (the command is the `muster.command` setting) and
// connects it to .mst files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("muster").get("command");
  client = new LanguageClient(
    "muster",
    "Muster",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "muster" }] }
  );
  context.subscriptions.push(client);
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
