/* The VS Code side: three commands, a findings panel and diagnostics on the matching lines.
 * Everything runs in the extension host with the bundled catalog; nothing leaves the machine. */
"use strict";
const crypto = require("crypto");
const vscode = require("vscode");
const { loadCore, loadLibrary, diagnose, diagnostics, panelHtml, terminalText: plainTerminalText } = require("./findings");

const KEEP_TERMINAL_BYTES = 8 * 1024 * 1024; /* the last 8 MiB of each terminal's command output */
let core, library, collection, panel, panelListener;
const terminalText = new Map();

function ready() {
  if (!library) {
    core = loadCore();
    library = loadLibrary();
  }
}

function siteUrl() {
  return vscode.workspace.getConfiguration("failpedia").get("siteUrl") || "";
}

function showPanel(result, source, documentUri, lineOffset) {
  if (!panel) {
    panel = vscode.window.createWebviewPanel("failpedia.findings", "Failpedia findings", vscode.ViewColumn.Beside, { enableScripts: true });
    panel.onDidDispose(() => { panel = undefined; });
  }
  panel.title = `Failpedia: ${result.findings.length} finding(s)`;
  panel.webview.html = panelHtml(result, source, siteUrl(), crypto.randomBytes(16).toString("hex"));
  if (panelListener) panelListener.dispose();
  panelListener = panel.webview.onDidReceiveMessage((message) => {
    if (!documentUri) return;
    const line = Math.max(0, message.line - 1 + lineOffset);
    vscode.window.showTextDocument(documentUri, { selection: new vscode.Range(line, 0, line, 0), viewColumn: vscode.ViewColumn.One });
  });
  panel.reveal(vscode.ViewColumn.Beside, true);
}

function markLines(document, result, name, lineOffset) {
  const marks = diagnostics(result, name, library).map((d) => {
    const line = document.lineAt(Math.min(d.line + lineOffset, document.lineCount - 1));
    const mark = new vscode.Diagnostic(line.range, d.message, vscode.DiagnosticSeverity.Error);
    mark.source = "failpedia";
    mark.code = d.record;
    return mark;
  });
  collection.set(document.uri, marks);
}

function diagnoseDocumentText(document, text, lineOffset, source) {
  ready();
  const name = vscode.workspace.asRelativePath(document.uri);
  const result = diagnose(core, library, [{ name, text }]);
  markLines(document, result, name, lineOffset);
  showPanel(result, source, document.uri, lineOffset);
}

function diagnoseFile() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return vscode.window.showInformationMessage("Failpedia: open a log file first.");
  const doc = editor.document;
  diagnoseDocumentText(doc, doc.getText(), 0, vscode.workspace.asRelativePath(doc.uri));
}

function diagnoseSelection() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) return vscode.window.showInformationMessage("Failpedia: select the lines of a log first.");
  const start = editor.selection.start.line;
  const range = new vscode.Range(start, 0, editor.selection.end.line, editor.document.lineAt(editor.selection.end.line).text.length);
  diagnoseDocumentText(editor.document, editor.document.getText(range), start, `the selection in ${vscode.workspace.asRelativePath(editor.document.uri)}`);
}

async function copiedTerminalText() {
  /* Without shell integration, read what the terminal shows: select all, copy, restore the clipboard. */
  const saved = await vscode.env.clipboard.readText();
  await vscode.commands.executeCommand("workbench.action.terminal.selectAll");
  await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
  await vscode.commands.executeCommand("workbench.action.terminal.clearSelection");
  const text = await vscode.env.clipboard.readText();
  await vscode.env.clipboard.writeText(saved);
  return text;
}

async function diagnoseTerminal() {
  const terminal = vscode.window.activeTerminal;
  if (!terminal) return vscode.window.showInformationMessage("Failpedia: no terminal is open.");
  ready();
  const text = plainTerminalText(terminalText.get(terminal) || (await copiedTerminalText()));
  const result = diagnose(core, library, [{ name: `terminal ${terminal.name}`, text }]);
  showPanel(result, `the output of terminal "${terminal.name}"`, undefined, 0);
}

async function keepOutput(event) {
  /* Shell integration streams each command's output: keep the tail per terminal. */
  let text = "";
  for await (const data of event.execution.read()) {
    text = (text + data).slice(-KEEP_TERMINAL_BYTES);
    terminalText.set(event.terminal, text);
  }
}

function activate(context) {
  collection = vscode.languages.createDiagnosticCollection("failpedia");
  context.subscriptions.push(
    collection,
    vscode.commands.registerCommand("failpedia.diagnoseSelection", diagnoseSelection),
    vscode.commands.registerCommand("failpedia.diagnoseFile", diagnoseFile),
    vscode.commands.registerCommand("failpedia.diagnoseTerminal", diagnoseTerminal),
    vscode.window.onDidCloseTerminal((terminal) => terminalText.delete(terminal))
  );
  if (vscode.window.onDidStartTerminalShellExecution) {
    context.subscriptions.push(vscode.window.onDidStartTerminalShellExecution((event) => { keepOutput(event); }));
  }
}

function deactivate() {}

module.exports = { activate, deactivate };
