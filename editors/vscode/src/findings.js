/* What the extension shows, without the editor: a log's findings (the site's matching core
 * on the catalog's signature library), a diagnostic per matching line, and the panel's HTML.
 * Kept free of the `vscode` module so that Node runs it in the tests. */
"use strict";
const fs = require("fs");
const path = require("path");

const LIB = path.join(__dirname, "..", "lib");

function loadCore() {
  return require(path.join(LIB, "failpedia-core.js"));
}

function loadLibrary() {
  return JSON.parse(fs.readFileSync(path.join(LIB, "signatures.json"), "utf8"));
}

/* Scan texts [{name, text}]; return the ranked findings and, per file name, every matching line. */
function diagnose(core, library, files) {
  const scanner = new core.Scanner(library);
  files.forEach((file) => {
    scanner.startFile(file.name);
    const lines = file.text.split("\n");
    for (let i = 0; i < lines.length; i++) scanner.scanLine(lines[i], i + 1);
  });
  const lines = {};
  Object.values(scanner.findings).forEach((f) => {
    f.evidence.forEach((e) => {
      const list = lines[e.file] || (lines[e.file] = []);
      list.push({ line: e.line, record: f.id, signature: e.signature });
    });
  });
  const findings = scanner.rank();
  return { findings, lines };
}

/* One diagnostic per matching line of a file: 0-based line, message, record id. A line that
 * two records match gets one diagnostic per record. */
function diagnostics(result, fileName, library) {
  const rows = (result.lines[fileName] || []).slice().sort((a, b) => a.line - b.line || (a.record < b.record ? -1 : 1));
  return rows.map((row) => {
    const rec = library.records[row.record] || {};
    return {
      line: row.line - 1,
      record: row.record,
      message: `${rec.title} (failpedia ${row.record}, signature ${row.signature}). Likely cause: ${rec.cause}. First fix: ${rec.fix}`,
    };
  });
}

/* Terminal output as text: shell integration's OSC 633 marks, other OSC strings, colour and
 * cursor codes removed, and \r\n made \n, so evidence lines read as the user saw them. */
function terminalText(raw) {
  return String(raw)
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "")
    .replace(/\x1b\[[0-?]*[ -\/]*[@-~]/g, "")
    .replace(/\r\n/g, "\n");
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function recordUrl(siteUrl, id) {
  return siteUrl ? `${siteUrl.replace(/\/+$/, "")}/entries/${encodeURIComponent(id)}/` : "";
}

/* The findings panel: each record with its causes, first fix and evidence lines (links when a
 * site URL is set); `nonce` admits only the panel's own script. */
function panelHtml(result, source, siteUrl, nonce) {
  const items = result.findings.map((f, i) => {
    const url = recordUrl(siteUrl, f.id);
    const name = url ? `<a href="${escapeHtml(url)}">${escapeHtml(f.title)}</a>` : escapeHtml(f.title);
    const evidence = f.evidence
      .map((e) => `<li><a class="line" href="#" data-file="${escapeHtml(e.file)}" data-line="${e.line}">${escapeHtml(e.file)}:${e.line}</a> <code>${escapeHtml(e.text)}</code></li>`)
      .join("");
    /* The causes as the log orders them, in the CLI's words (the core's causeLines). */
    const causes = loadCore().causeLines(f).map((text) => `<p class="cause">${escapeHtml(text)}</p>`).join("");
    const more = f.lines > f.evidence.length ? `<p class="more">+${f.lines - f.evidence.length} more matching line(s)</p>` : "";
    return (
      `<section class="finding" data-id="${escapeHtml(f.id)}"><h2>${i + 1}. ${name} <small>(${escapeHtml(f.id)}, ${escapeHtml(f.role)})</small></h2>` +
      `${causes}<p><b>First fix:</b> ${escapeHtml(f.fix)}</p><ul>${evidence}</ul>${more}</section>`
    );
  });
  const body = items.length
    ? items.join("")
    : `<p class="none">No known failure signature matched ${escapeHtml(source)}.</p>`;
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';`;
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<title>Failpedia</title></head><body><h1>Failpedia: ${escapeHtml(source)}</h1>` +
    `<p class="summary">${result.findings.length} finding(s), best first. Diagnosed locally; nothing was uploaded.</p>${body}` +
    `<script nonce="${nonce}">const vscode = acquireVsCodeApi(); document.querySelectorAll("a.line").forEach((a) => a.addEventListener("click", (ev) => { ev.preventDefault(); vscode.postMessage({ file: a.dataset.file, line: Number(a.dataset.line) }); }));</script>` +
    `</body></html>`
  );
}

module.exports = { loadCore, loadLibrary, diagnose, diagnostics, panelHtml, escapeHtml, recordUrl, terminalText };
