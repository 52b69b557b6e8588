// Runs the VS Code extension's editor-free part (editors/vscode/src/findings.js) under Node:
// prints the findings, the diagnostics of each file and the panel's HTML for the given logs.
// Usage: node vscode_check.js EXTENSION_DIR LOGS.json   (LOGS: [{name, text, terminal?}]; terminal: raw terminal output)
"use strict";
const fs = require("fs");
const path = require("path");
const findings = require(path.join(process.argv[2], "src", "findings.js"));
const logs = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).map((log) =>
  log.terminal ? { name: log.name, text: findings.terminalText(log.text) } : log
);
const core = findings.loadCore();
const library = findings.loadLibrary();
const result = findings.diagnose(core, library, logs);
const diagnostics = {};
logs.forEach((log) => { diagnostics[log.name] = findings.diagnostics(result, log.name, library); });
const html = findings.panelHtml(result, "the test's logs", "https://example.test/fp/", "n0nce");
const evidence = result.findings.map((f) => f.evidence.map((e) => e.text));
process.stdout.write(JSON.stringify({ ids: result.findings.map((f) => f.id), diagnostics, html, evidence }));
