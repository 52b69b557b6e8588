// Runs the theme's own search worker (lunr, its tokenizer and its post-query boosts) under
// Node on a built site's index, after the same query cleanup the search box applies.
// Prints, for every query, the page the first result group belongs to, or with DEPTH the
// pages of the first DEPTH result groups.
// Usage: node search_check.js WORKER.js SEARCH_INDEX.json CORE.js QUERIES.json [DEPTH]
"use strict";
const fs = require("fs");
const [workerPath, indexPath, corePath, queriesPath, depth] = process.argv.slice(2);
const core = require(corePath);

let handler = null;
let deliver = null;
globalThis.self = globalThis;
globalThis.addEventListener = (type, fn) => { handler = fn; };
globalThis.postMessage = (message) => deliver(message);
globalThis.importScripts = () => {};
(0, eval)(fs.readFileSync(workerPath, "utf8"));

// Message types of the worker: 0 sets the index up, 2 runs a query.
// The page a result group belongs to: its page item, or else its first section's.
const pageOf = (group) => (group.find((item) => !item.location.includes("#")) || group[0]).location;

const send = (data) => new Promise((resolve) => { deliver = resolve; handler({ data }); });

(async () => {
  const index = JSON.parse(fs.readFileSync(indexPath, "utf8"));
  await send({ type: 0, data: { config: index.config, docs: index.docs, options: { suggest: false } } });
  const tops = [];
  for (const query of JSON.parse(fs.readFileSync(queriesPath, "utf8"))) {
    const result = await send({ type: 2, data: core.searchQuery(query) });
    const pages = result.data.items.slice(0, Number(depth || 1)).map(pageOf);
    tops.push(depth ? pages : pages.length ? pages[0] : null);
  }
  process.stdout.write(JSON.stringify(tops));
})();
