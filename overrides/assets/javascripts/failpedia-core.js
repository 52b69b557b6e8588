/* Failpedia core: the browser twin of generator/normalize.py, match.py and diagnose.py.
 * Normalises lines, matches the signature library and ranks findings exactly as
 * `failpedia diagnose` does; tests/vectors/*.json hold both sides to the same answers.
 * Plain script: works as a page script, in a Web Worker and under Node (tests). */
(function (root) {
  "use strict";

  var ANSI_RE = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]/g;
  var PREFIX_RE = new RegExp(
    "^(?:" +
      "\\[(?:rank|default|local_rank)?[0-9]+\\]:?" +
      "|\\[[0-9]+,[0-9]+\\]<std(?:out|err)>:" +
      "|[0-9]{1,5}: " +
      "|\\[?[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?\\]?" +
      "|\\[ *[0-9]+\\.[0-9]+\\]" +
      "|[A-Za-z0-9_.-]+:[0-9]+:[0-9]+ \\[[0-9]+\\]" +
      ")[ \\t]*"
  );
  var MAX_PREFIXES = 8;
  var TRAILING = /[ \t\r\n\f\v]+$/;
  var TIMESTAMP_RE = /([0-9]{4}-[0-9]{2}-[0-9]{2})[T ]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?)/;
  var WEIGHT = { specific: 10, supporting: 4, wrapper: 1 };
  var MAX_EVIDENCE = 5;
  var MAX_TEXT = 400;

  function stripPrefixes(text) {
    text = text.replace(/^[ \t]+/, "");
    for (var i = 0; i < MAX_PREFIXES; i++) {
      var m = PREFIX_RE.exec(text);
      if (!m || m[0].length === 0) break;
      text = text.slice(m[0].length);
    }
    return text;
  }

  function normalizeLine(line) {
    return stripPrefixes(line.replace(ANSI_RE, "")).replace(TRAILING, "");
  }

  function timestampOf(text) {
    var m = TIMESTAMP_RE.exec(text.slice(0, 80));
    return m ? m[1] + " " + m[2].replace(",", ".") : "";
  }

  function compileLibrary(library) {
    return library.signatures.map(function (sig) {
      return { id: sig.id, record: sig.record, strength: sig.strength, re: new RegExp(sig.js, sig.flags === "i" ? "i" : "") };
    });
  }

  /* A scan keeps, per record, every matching line once; rank shows the MAX_EVIDENCE earliest by time. */
  function Scanner(library) {
    this.library = library;
    this.signatures = compileLibrary(library);
    this.findings = {};
    this.fileIndex = -1;
    this.fileName = "";
  }

  Scanner.prototype.startFile = function (name) {
    this.fileIndex += 1;
    this.fileName = name;
  };

  /* One physical line (split on \n) with its 1-based number; \r splits it into segments. */
  Scanner.prototype.scanLine = function (raw, lineNo) {
    var segments = raw.split("\r");
    for (var s = 0; s < segments.length; s++) {
      var line = normalizeLine(segments[s]);
      if (!line) continue;
      for (var i = 0; i < this.signatures.length; i++) {
        var sig = this.signatures[i];
        if (sig.re.test(line)) this.add(sig, segments[s], lineNo);
      }
    }
  };

  Scanner.prototype.add = function (sig, text, lineNo) {
    var f = this.findings[sig.record];
    if (!f) f = this.findings[sig.record] = { id: sig.record, evidence: [], seen: {} };
    f.signatures = f.signatures || {};
    f.signatures[sig.id] = sig.strength;
    var key = this.fileIndex + ":" + lineNo; /* a line counts once however many signatures match it */
    if (f.seen[key]) return;
    f.seen[key] = true;
    f.lines = (f.lines || 0) + 1;
    var order = [this.fileIndex, lineNo];
    var t = text.replace(/[\r\n]+$/, "").slice(0, MAX_TEXT);
    f.evidence.push({ file: this.fileName, line: lineNo, text: t, signature: sig.id, strength: sig.strength, order: order, timestamp: timestampOf(t) });
  };

  function evidenceKey(e) {
    return [e.timestamp || "~", e.order[0], e.order[1]];
  }

  function compareKeys(a, b) {
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) return -1;
      if (a[i] > b[i]) return 1;
    }
    return 0;
  }

  function upstream(id, records) {
    var found = {};
    var stack = (records[id] && records[id].downstream_of || []).slice();
    while (stack.length) {
      var cur = stack.pop();
      if (found[cur]) continue;
      found[cur] = true;
      var up = records[cur];
      if (up) stack = stack.concat(up.downstream_of || []);
    }
    return found;
  }

  function strengthOf(f) {
    var best = "wrapper";
    Object.keys(f.signatures).forEach(function (id) {
      if (WEIGHT[f.signatures[id]] > WEIGHT[best]) best = f.signatures[id];
    });
    return best;
  }

  /* Rank as generator/diagnose.py does: the earliest lines by time kept per record,
   * initiating before downstream, then score, then earliest time and position, then id. */
  Scanner.prototype.rank = function () {
    var records = this.library.records;
    var list = Object.keys(this.findings).map(function (id) { return this.findings[id]; }, this);
    list.forEach(function (f) {
      f.evidence.sort(function (a, b) { return compareKeys(evidenceKey(a), evidenceKey(b)); });
    });
    var anySpecific = list.some(function (f) { return strengthOf(f) !== "wrapper"; });
    var present = {};
    list.forEach(function (f) { present[f.id] = true; });
    list.forEach(function (f) {
      var ups = upstream(f.id, records);
      var causePresent = Object.keys(ups).some(function (id) { return present[id]; });
      var strength = strengthOf(f);
      var distinct = Object.keys(f.signatures).length;
      f.score = WEIGHT[strength] + Math.min(distinct - 1, 3);
      f.role = causePresent || (strength === "wrapper" && anySpecific) ? "downstream" : "initiating";
      f.first = f.evidence[0];
    });
    list.sort(function (a, b) {
      return compareKeys(
        [a.role !== "initiating" ? 1 : 0, -a.score].concat(evidenceKey(a.first), [a.id]),
        [b.role !== "initiating" ? 1 : 0, -b.score].concat(evidenceKey(b.first), [b.id])
      );
    });
    return list.map(function (f) {
      var rec = records[f.id] || {};
      return {
        id: f.id, title: rec.title, score: f.score, role: f.role, url: rec.url, cause: rec.cause, fix: rec.fix,
        lines: f.lines,
        evidence: f.evidence.slice(0, MAX_EVIDENCE).map(function (e) {
          return { file: e.file, line: e.line, text: e.text, signature: e.signature };
        })
      };
    });
  };

  /* Convenience: scan whole texts [{name, text}] and rank. */
  function diagnoseTexts(library, files) {
    var scanner = new Scanner(library);
    files.forEach(function (file) {
      scanner.startFile(file.name);
      var lines = file.text.split("\n");
      for (var i = 0; i < lines.length; i++) scanner.scanLine(lines[i], i + 1);
    });
    return scanner.rank();
  }

  /* The site search box: lunr reads ":" as a field, "-" and "+" as presence, "~", "^" and "*"
   * as operators, and a pasted log line is full of them and of other punctuation. Every
   * character the search separator splits on anyway (all but letters, digits, "_" and ".")
   * becomes a space, so the words are the same and the syntax is gone. */
  function searchQuery(text) {
    return text.replace(/[^A-Za-z0-9_.\s\u00c0-\uffff]+/g, " ");
  }

  var api = {
    normalizeLine: normalizeLine, timestampOf: timestampOf, Scanner: Scanner, diagnoseTexts: diagnoseTexts,
    compileLibrary: compileLibrary, searchQuery: searchQuery
  };
  root.FailpediaCore = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof self !== "undefined" ? self : this);
