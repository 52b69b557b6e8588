// Runs the browser's matching core under Node for the tests: prints one JSON object with
// the normalised vectors, every signature example's verdict, and the ranked diagnoses.
// Also runs each example line through a Scanner (prefilter, then engine) and each hostile
// pattern of HOSTILE.json on its long line, and gives the triage of each log of TRIAGE.json, and
// each finding's evidence, judged causes and cause texts for each log of CAUSES.json.
// Usage: node core_check.js CORE.js LIBRARY.json VECTORS.json CASES.json HOSTILE.json TRIAGE.json CAUSES.json JUDGE.json
"use strict";
const fs = require("fs");
const core = require(process.argv[2]);
const library = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const vectors = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const cases = JSON.parse(fs.readFileSync(process.argv[5], "utf8"));

const normalize = vectors.cases.map(([raw]) => core.normalizeLine(raw));
const hosts = vectors.hosts.map(([raw]) => core.lineHost(raw));
const compiled = core.compileLibrary(library);
const examples = library.signatures.map((sig, i) => ({
  id: sig.id,
  match: sig.examples.match.map((line) => compiled[i].re.test(core.normalizeLine(line))),
  no_match: sig.examples.no_match.map((line) => compiled[i].re.test(core.normalizeLine(line))),
}));
const scanner = new core.Scanner(library);
function scannedIds(line) {
  scanner.findings = {};
  scanner.scanLine(line, 1);
  // Every signature that matched (a line is evidence once, under the first signature that matched it).
  return [].concat(...Object.values(scanner.findings).map((f) => Object.keys(f.signatures)));
}
const scanned = library.signatures.map((sig) => ({
  id: sig.id,
  match: sig.examples.match.map((line) => scannedIds(line).includes(sig.id)),
  no_match: sig.examples.no_match.map((line) => scannedIds(line).includes(sig.id)),
}));
const hostile = JSON.parse(fs.readFileSync(process.argv[6], "utf8")).map((item) => {
  const lib = { records: {}, signatures: [{ id: "h", record: "h", strength: "specific", pattern: item.pattern, flags: "", needles: item.needles }] };
  return core.diagnoseTexts(lib, [{ name: "long.log", text: item.line }]).length > 0;
});
const diagnoses = cases.map((files) =>
  core.diagnoseTexts(library, files).map((f) => ({ id: f.id, role: f.role, score: f.score }))
);
const triage = JSON.parse(fs.readFileSync(process.argv[7], "utf8")).map((files) => {
  const triaging = new core.Scanner(library);
  core.diagnoseTexts(library, files, triaging);
  return triaging.triage.report();
});
const causes = JSON.parse(fs.readFileSync(process.argv[8], "utf8")).map((files) =>
  core.diagnoseTexts(library, files).map((f) => ({ id: f.id, evidence: f.evidence, causes: f.causes, texts: core.causeLines(f) }))
);
// JUDGE.json: [{causes, seen: {signatures, records, versions}, lines}] judged directly, as causes.py's judge_causes.
const labels = Object.fromEntries(Object.entries(library.facts).map(([name, fact]) => [name, fact.label]));
const judged = JSON.parse(fs.readFileSync(process.argv[9], "utf8")).map((item) => {
  const flags = (ids) => Object.fromEntries(ids.map((id) => [id, true]));
  const seen = { signatures: flags(item.seen.signatures), records: flags(item.seen.records), versions: item.seen.versions, labels, patterns: {} };
  return core.judgeCauses(item.causes, seen, item.lines);
});
process.stdout.write(JSON.stringify({ normalize, hosts, examples, scanned, hostile, diagnoses, triage, causes, judged }));
