/* The diagnosis Web Worker: matching runs here so the page stays responsive. */
"use strict";
importScripts("vendor/re2js.js", "failpedia-core.js", "diagnose-reader.js");

self.onmessage = function (event) {
  var job = event.data;
  self.FailpediaReader.run(job, function (done, total) {
    self.postMessage({ type: "progress", done: done, total: total });
  }).then(function (result) {
    self.postMessage({ type: "done", findings: result.findings, notes: result.notes, triage: result.triage });
  }, function (error) {
    self.postMessage({ type: "error", message: String(error && error.message || error) });
  });
};
