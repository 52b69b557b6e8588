/* Failpedia core: the browser twin of generator/normalize.py, match.py, diagnose.py and causes.py.
 * Normalises lines, matches the signature library, ranks findings and orders each finding's
 * causes by the evidence exactly as `failpedia diagnose` does; tests/vectors/*.json and
 * tests/test_js_core.py hold both sides to the same answers.
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
  var HOST_RE = /^([A-Za-z0-9_.-]+):[0-9]+:[0-9]+ \[[0-9]+\]/;
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

  /* normalize.py's line_host: the host of NCCL's "host:pid:tid [dev]" prefix, or null. */
  function lineHost(line) {
    var text = line.replace(ANSI_RE, "").replace(/^[ \t]+/, "");
    for (var i = 0; i < MAX_PREFIXES; i++) {
      var m = PREFIX_RE.exec(text);
      if (!m || m[0].length === 0) return null;
      var host = HOST_RE.exec(text);
      if (host) return host[1];
      text = text.slice(m[0].length);
    }
    return null;
  }

  function normalizeLine(line) {
    return stripPrefixes(line.replace(ANSI_RE, "")).replace(TRAILING, "");
  }

  function timestampOf(text) {
    var m = TIMESTAMP_RE.exec(text.slice(0, 80));
    return m ? m[1] + " " + m[2].replace(",", ".") : "";
  }

  /* The engine: RE2JS (a port of RE2, linear time), vendored from npm at build time. Patterns
   * go to it in the portable dialect as written, so the page reads them as the CLI's RE2 does. */
  function engine() {
    var found = root.RE2JS || (typeof require === "function" ? require("re2js") : null);
    if (!found || !found.RE2JS) throw new Error("the RE2JS engine (assets/javascripts/vendor/re2js.js) is not loaded");
    return found.RE2JS;
  }

  /* Every code unit mapped to one member of its case orbit (k, K and U+212A all read as k). */
  function foldTable() {
    var table = new Uint16Array(65536);
    for (var c = 0; c < 65536; c++) {
      var up = String.fromCharCode(c).toUpperCase();
      var low = up.length === 1 ? up.toLowerCase() : "";
      table[c] = low.length === 1 ? low.charCodeAt(0) : c;
    }
    return table;
  }

  /* Aho-Corasick over folded code units: which needles a line holds, in one linear pass.
   * Folding only widens the search, so a line it passes over holds none of the needles. */
  function NeedleSearch(needles) {
    var fold = foldTable(), classes = new Uint16Array(65536), size = 1;
    var words = needles.map(function (n) { return Array.prototype.map.call(n, function (ch) { return fold[ch.charCodeAt(0)]; }); });
    words.forEach(function (w) { w.forEach(function (c) { if (!classes[c]) classes[c] = size++; }); });
    for (var c = 0; c < 65536; c++) classes[c] = classes[fold[c]];
    var trie = [new Map()], outs = [[]];
    words.forEach(function (w, id) {
      var s = 0;
      w.forEach(function (c) {
        var next = trie[s].get(classes[c]);
        if (next === undefined) { next = trie.length; trie[s].set(classes[c], next); trie.push(new Map()); outs.push([]); }
        s = next;
      });
      outs[s].push(id);
    });
    this.classes = classes;
    this.size = size;
    this.outs = outs;
    this.delta = transitions(trie, outs, size);
    this.ends = Uint8Array.from(outs, function (out) { return out.length ? 1 : 0; });
    this.mark = new Int32Array(needles.length);
    this.stamp = 0;
  }

  /* The complete automaton (failure links folded in), one row of `size` states per state. */
  function transitions(trie, outs, size) {
    var delta = new Int32Array(trie.length * size), fail = new Int32Array(trie.length), queue = [0];
    for (var q = 0; q < queue.length; q++) {
      var s = queue[q];
      for (var k = 1; k < size; k++) {
        var next = trie[s].get(k), viaFail = s ? delta[fail[s] * size + k] : 0;
        if (next === undefined) { delta[s * size + k] = viaFail; continue; }
        fail[next] = viaFail;
        outs[next] = outs[next].concat(outs[viaFail]);
        delta[s * size + k] = next;
        queue.push(next);
      }
    }
    return delta;
  }

  /* The ids of the needles in text, each once, or null when it holds none. Work per code
   * unit is bounded by the needles ending there, so a line costs linear time. */
  NeedleSearch.prototype.find = function (text) {
    var s = 0, found = null, classes = this.classes, delta = this.delta, size = this.size, outs = this.outs;
    var ends = this.ends, mark = this.mark, stamp = this.stamp = (this.stamp + 1) | 0;
    for (var i = 0; i < text.length; i++) {
      s = delta[s * size + classes[text.charCodeAt(i)]];
      if (!ends[s]) continue;
      var out = outs[s];
      for (var j = 0; j < out.length; j++) {
        if (mark[out[j]] === stamp) continue;
        mark[out[j]] = stamp;
        (found || (found = [])).push(out[j]);
      }
    }
    return found;
  };

  var SYNTAX = /[\^$\\.*+?()[\]{}|\/]/g;

  /* A test for "the line holds one of these literals", exact in case unless ignoreCase. */
  function anyOf(set, ignoreCase) {
    if (!ignoreCase) return function (line) { return set.some(function (n) { return line.indexOf(n) >= 0; }); };
    var re = new RegExp(set.map(function (n) { return n.replace(SYNTAX, "\\$&"); }).join("|"), "iu");
    return function (line) { return re.test(line); };
  }

  function compileLibrary(library) {
    var RE2JS = engine();
    return library.signatures.map(function (sig) {
      var ignoreCase = sig.flags === "i";
      return {
        id: sig.id, record: sig.record, strength: sig.strength, needles: sig.needles || [],
        sets: (sig.needles || []).slice(1).map(function (set) { return anyOf(set, ignoreCase); }),
        re: RE2JS.compile(sig.pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0)
      };
    });
  }

  /* A line-matching entry that is not a record's signature (a version fact, a `log:` condition
   * pattern): matched in the same scan, prefiltered by its needles like any signature. */
  function pseudoSignature(id, pattern, needles) {
    return {
      id: id, record: "", strength: "fact", needles: needles || [],
      sets: (needles || []).slice(1).map(function (set) { return anyOf(set, false); }),
      re: engine().compile(pattern, 0)
    };
  }

  /* The facts a log states (library.facts: the NCCL, PyTorch, CUDA and driver versions), matched
   * like signatures; `value` reads the version from the line as found (group 1), as facts.py does. */
  function compileFacts(library) {
    var facts = library.facts || {};
    return Object.keys(facts).sort().map(function (name) {
      var sig = pseudoSignature("fact." + name, facts[name].pattern, facts[name].needles);
      sig.fact = name;
      sig.value = sig.re;
      return sig;
    });
  }

  /* The patterns of `log:` cause conditions (library.conditions): any line of the log may decide
   * one, so they are matched in the same scan, as facts.py's condition pseudo-signatures are. */
  function compileConditions(library) {
    return (library.conditions || []).map(function (item) {
      var sig = pseudoSignature("cond." + item.pattern, item.pattern, item.needles);
      sig.condition = item.pattern;
      return sig;
    });
  }

  /* The literal prefilter: the signatures to try on a line, by the needles it holds. */
  function Prefilter(signatures) {
    var needles = [], owners = [];
    this.always = [];
    signatures.forEach(function (sig, index) {
      if (!sig.needles.length) this.always.push(index);
      sig.needles.length && sig.needles[0].forEach(function (n) { needles.push(n); owners.push(index); });
    }, this);
    this.search = new NeedleSearch(needles);
    this.owners = owners;
  }

  /* Indexes of the signatures whose every needle set has a member in text, ascending (null: none). */
  Prefilter.prototype.candidates = function (text, signatures) {
    var hits = this.search.find(text);
    if (!hits && !this.always.length) return null;
    var picked = this.always.slice();
    for (var h = 0; hits && h < hits.length; h++) picked.push(this.owners[hits[h]]);
    picked.sort(function (a, b) { return a - b; });
    var kept = [];
    for (var i = 0; i < picked.length; i++) {
      if (picked[i] === picked[i - 1]) continue;
      var sets = signatures[picked[i]].sets, all = true;
      for (var k = 0; k < sets.length && all; k++) all = sets[k](text);
      if (all) kept.push(picked[i]);
    }
    return kept;
  };

  /* A scan keeps, per record, every matching line once; rank shows the MAX_EVIDENCE earliest by time. */
  function Scanner(library) {
    this.library = library;
    this.signatures = compileLibrary(library).concat(compileFacts(library), compileConditions(library));
    this.stated = {};
    this.logged = {};
    this.prefilter = new Prefilter(this.signatures);
    this.findings = {};
    this.fileIndex = -1;
    this.fileName = "";
    this.triage = new Triage();
  }

  Scanner.prototype.startFile = function (name) {
    this.fileIndex += 1;
    this.fileName = name;
    this.triage.startFile(this.fileIndex, name);
  };

  /* One physical line (split on \n) with its 1-based number; \r splits it into segments.
   * Normalising only removes text (ANSI codes first, then prefixes and trailing space), so a
   * segment the prefilter passes over, once without ANSI codes, cannot match: it is skipped. */
  Scanner.prototype.scanLine = function (raw, lineNo) {
    this.triage.line(raw, lineNo);
    var segments = raw.indexOf("\r") < 0 ? [raw] : raw.split("\r");
    for (var s = 0; s < segments.length; s++) {
      var plain = segments[s].indexOf("\x1b") < 0 ? segments[s] : segments[s].replace(ANSI_RE, "");
      var picked = this.prefilter.candidates(plain, this.signatures);
      if (!picked || !picked.length) continue;
      var line = stripPrefixes(plain).replace(TRAILING, "");
      if (!line) continue;
      for (var i = 0; i < picked.length; i++) {
        var sig = this.signatures[picked[i]];
        if (!sig.re.test(line)) continue;
        if (sig.fact) this.state(sig, plain, lineNo);
        else if (sig.condition) this.logLine(sig, plain, lineNo);
        else this.add(sig, plain, lineNo, s); /* the CLI shows the line without its ANSI codes too */
      }
    }
  };

  /* A line counts once however many signatures match it; like the CLI, its evidence names the first
   * segment that matched and, of the signatures matching there, the first in the record's order. */
  Scanner.prototype.add = function (sig, text, lineNo, segment) {
    var f = this.findings[sig.record];
    if (!f) f = this.findings[sig.record] = { id: sig.record, evidence: [], seen: {} };
    f.signatures = f.signatures || {};
    f.signatures[sig.id] = sig.strength;
    var key = this.fileIndex + ":" + lineNo, had = f.seen[key];
    if (had) {
      if (had.segment === segment && this.position(sig.id) < this.position(had.signature)) {
        had.signature = sig.id;
        had.strength = sig.strength;
      }
      return;
    }
    f.lines = (f.lines || 0) + 1;
    var order = [this.fileIndex, lineNo];
    var t = text.replace(/[\r\n]+$/, "").slice(0, MAX_TEXT);
    f.seen[key] = { file: this.fileName, line: lineNo, text: t, signature: sig.id, strength: sig.strength, order: order, timestamp: timestampOf(t), segment: segment };
    f.evidence.push(f.seen[key]);
  };

  /* A signature's place in its record (library.records[id].signatures), 0 where the library does not say. */
  Scanner.prototype.position = function (id) {
    if (!this.positions) {
      var positions = this.positions = {}, records = this.library.records || {};
      Object.keys(records).forEach(function (rec) {
        (records[rec].signatures || []).forEach(function (sig, i) { positions[sig] = i; });
      });
    }
    return this.positions[id] || 0;
  };

  /* Keep the first (by time) version of a fact the log states, with where it was stated. */
  Scanner.prototype.state = function (sig, text, lineNo) {
    var m = sig.value.matcher(text);
    if (!m.find()) return;
    var key = [timestampOf(text) || "~", this.fileIndex, lineNo], old = this.stated[sig.fact];
    if (old && compareKeys(key, old.key) >= 0) return;
    this.stated[sig.fact] = { key: key, value: m.group(1), file: this.fileName, line: lineNo };
  };

  /* Keep the first (by time) line each `log:` condition matched, with where it is. */
  Scanner.prototype.logLine = function (sig, text, lineNo) {
    var key = [timestampOf(text) || "~", this.fileIndex, lineNo], old = this.logged[sig.condition];
    if (old && compareKeys(key, old.key) >= 0) return;
    this.logged[sig.condition] = { key: key, value: clip(text.replace(/[\r\n]+$/, ""), REASON_TEXT), file: this.fileName, line: lineNo };
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

  /* The causes, judged as generator/diagnosis/causes.py judges them: a cause is ruled out by any
   * `unless` that holds, supported by any `when` that holds, ruled out when every `when` is a
   * stated version outside its range, else possible; ordered supported, possible, ruled out, then
   * by the number of reasons, then as the record lists them. Reasons are the CLI's words. */
  var VERSION_SPEC = /^\s*(nccl|torch|cuda|driver)\s*((?:(?:>=|<=|==|<|>)\s*[0-9]+(?:\.[0-9]+)*\s*,?\s*)+)$/;
  var BOUND = /(>=|<=|==|<|>)\s*([0-9]+(?:\.[0-9]+)*)/g;
  var VERDICT_ORDER = { supported: 0, possible: 1, "ruled out": 2 };
  var REASON_TEXT = 160;

  function versionTuple(text) {
    return (text.match(/[0-9]+/g) || []).slice(0, 4).map(Number);
  }

  /* Python's tuple order: element by element, then the shorter first. */
  function compareTuples(a, b) {
    var c = compareKeys(a.slice(0, Math.min(a.length, b.length)), b);
    return c || a.length - b.length;
  }

  function inRange(version, bounds) {
    var have = versionTuple(version), tests = {
      ">=": function (c) { return c >= 0; }, "<=": function (c) { return c <= 0; }, "==": function (c) { return c === 0; },
      "<": function (c) { return c < 0; }, ">": function (c) { return c > 0; }
    };
    var bound, all = true;
    BOUND.lastIndex = 0;
    while ((bound = BOUND.exec(bounds)) !== null) all = tests[bound[1]](compareTuples(have, versionTuple(bound[2]))) && all;
    return all;
  }

  function versionCondition(spec, seen) {
    var parsed = VERSION_SPEC.exec(spec);
    var stated = parsed && seen.versions[parsed[1]];
    if (!stated) return [null, ""];
    var bounds = parsed[2].trim().replace(/,+$/, ""), holds = inRange(stated.value, bounds);
    var label = seen.labels[parsed[1]] || parsed[1];
    return [holds, label + " " + stated.value + " " + (holds ? "is" : "is not") + " " + bounds + " (" + stated.file + ":" + stated.line + ")"];
  }

  /* Python slices code points, not UTF-16 units. */
  function clip(text, n) {
    var points = Array.from(text);
    return points.length > n ? points.slice(0, n).join("") : text;
  }

  function lineCondition(pattern, seen, lines) {
    var re = seen.patterns[pattern] || (seen.patterns[pattern] = engine().compile(pattern, 0));
    for (var i = 0; i < lines.length; i++) {
      if (re.test(normalizeLine(lines[i].text))) return [true, lines[i].file + ":" + lines[i].line + ": " + clip(lines[i].text, REASON_TEXT)];
    }
    return [false, ""];
  }

  /* causes.py's host_condition: the pattern sees the host with a space either side. */
  function hostCondition(pattern, seen, lines) {
    var re = seen.patterns[pattern] || (seen.patterns[pattern] = engine().compile(pattern, 0));
    for (var i = 0; i < lines.length; i++) {
      var host = lineHost(lines[i].text);
      if (host !== null && re.test(" " + host + " ")) return [true, lines[i].file + ":" + lines[i].line + ": host " + clip(host, REASON_TEXT)];
    }
    return [false, ""];
  }

  function condition(item, seen, lines) {
    if ("signature" in item) {
      var sig = !!seen.signatures[item.signature];
      return [sig, sig ? "signature " + item.signature + " matched" : ""];
    }
    if ("record" in item) {
      var rec = !!seen.records[item.record];
      return [rec, rec ? item.record + " is in this log too" : ""];
    }
    if ("version" in item) return versionCondition(item.version, seen);
    if ("log" in item) {
      var logged = seen.lines[item.log];
      return logged ? [true, logged.file + ":" + logged.line + ": " + logged.value] : [false, ""];
    }
    if ("host" in item) return hostCondition(item.host, seen, lines);
    return lineCondition(item.line, seen, lines);
  }

  function judge(index, cause, seen, lines) {
    var decide = function (item) { return condition(item, seen, lines); };
    var reasons = function (list, verdict) {
      return list.filter(function (d) { return d[0] === verdict && d[1]; }).map(function (d) { return d[1]; });
    };
    var out = function (verdict, why) { return { index: index, title: cause.title, verdict: verdict, reasons: why }; };
    var against = reasons((cause.unless || []).map(decide), true);
    if (against.length) return out("ruled out", against);
    var decided = (cause.when || []).map(decide), support = reasons(decided, true), refuted = reasons(decided, false);
    if (support.length) return out("supported", support);
    if (refuted.length && refuted.length === decided.length) return out("ruled out", refuted);
    return out("possible", []);
  }

  function judgeCauses(causes, seen, lines) {
    return causes.map(function (cause, i) { return judge(i, cause, seen, lines); }).sort(function (a, b) {
      return compareKeys([VERDICT_ORDER[a.verdict], -a.reasons.length, a.index], [VERDICT_ORDER[b.verdict], -b.reasons.length, b.index]);
    }).map(function (j) { return { title: j.title, verdict: j.verdict, reasons: j.reasons }; });
  }

  /* What the CLI prints about the causes (generator/diagnosis/explain.py's cause_texts), unwrapped. */
  function causeLines(finding) {
    var judged = finding.causes || [];
    if (!judged.length) return [];
    var best = judged[0];
    if (judged.length === 1) return ["Cause: " + best.title];
    if (judged.every(function (j) { return j.verdict === "possible"; })) {
      var note = "the log does not tell the " + judged.length + " causes apart; to decide: " + finding.confirm;
      return ["Most common cause: " + best.title + " (" + note + ")"];
    }
    var lines = [best.verdict === "supported" ? "Likely cause: " + best.title + " (" + best.reasons.join("; ") + ")" : "Possible cause: " + best.title];
    judged.slice(1).forEach(function (j) {
      if (j.verdict === "ruled out") lines.push("Ruled out: " + j.title + " (" + j.reasons.join("; ") + ")");
    });
    return lines;
  }

  /* What the whole report saw, as diagnose.py's Seen: every matched signature and record, the stated versions. */
  Scanner.prototype.seen = function () {
    var signatures = {}, records = {}, versions = {}, labels = {}, facts = this.library.facts || {};
    Object.keys(this.findings).forEach(function (id) {
      records[id] = true;
      Object.keys(this.findings[id].signatures).forEach(function (sig) { signatures[sig] = true; });
    }, this);
    Object.keys(this.stated).forEach(function (name) { versions[name] = this.stated[name]; }, this);
    Object.keys(facts).forEach(function (name) { labels[name] = facts[name].label; });
    return { signatures: signatures, records: records, versions: versions, labels: labels, lines: this.logged, patterns: {} };
  };

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
    var seen = this.seen();
    list.sort(function (a, b) {
      return compareKeys(
        [a.role !== "initiating" ? 1 : 0, -a.score].concat(evidenceKey(a.first), [a.id]),
        [b.role !== "initiating" ? 1 : 0, -b.score].concat(evidenceKey(b.first), [b.id])
      );
    });
    return list.map(function (f) {
      var rec = records[f.id] || {};
      var evidence = f.evidence.slice(0, MAX_EVIDENCE).map(function (e) {
        return { file: e.file, line: e.line, text: e.text, signature: e.signature };
      });
      var causes = judgeCauses(rec.causes || (rec.cause ? [{ title: rec.cause }] : []), seen, evidence);
      return {
        id: f.id, title: rec.title, score: f.score, role: f.role, url: rec.url, fix: rec.fix, confirm: rec.confirm,
        cause: causes.length ? causes[0].title : rec.cause, causes: causes, lines: f.lines, evidence: evidence
      };
    });
  };

  /* Triage for a log no signature matched, as generator/diagnosis/triage.py does: the most
   * error-like lines (each distinct text once, its earliest by time), the last lines of each
   * rank, the key line to search for and the command that starts a record. Names no cause. */
  var CLASS_WORDS = "\\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\\b";
  var ERROR_RE = new RegExp(CLASS_WORDS + "|\\b(?:ERROR|Error|error|FAILED|Failed|failed|FATAL|Fatal|fatal|Killed|killed" +
    "|Traceback|Segmentation fault|core dumped|Aborted)\\b");
  var RAISED_RE = /^[A-Za-z0-9_.]*[A-Z][A-Za-z0-9]*(?:Error|Exception)\b/;
  var RANK_RE = /^\[(?:rank|default)([0-9]+)\]:|\[(?:PG [^\]]*)?Rank ([0-9]+)\]/;
  var TRIAGE = { lines: 8, tail: 200, rankLines: 3, groups: 16, query: 120 };
  var NOT_FILES = { "<stdin>": true, "pasted log": true, "pasted": true };

  function rankOf(text) {
    var m = RANK_RE.exec(text.slice(0, 200));
    return m ? Number(m[1] !== undefined ? m[1] : m[2]) : null;
  }

  function Triage() {
    this.kept = [];
    this.tails = [];
    this.startFile(0, "");
  }

  Triage.prototype.startFile = function (index, name) {
    this.index = index;
    this.tails[index] = { name: name, lines: [] };
  };

  Triage.prototype.line = function (raw, lineNo) {
    var tail = this.tails[this.index].lines;
    if (tail.length && tail[tail.length - 1][0] === lineNo) tail.pop(); /* a window of an over-long line again */
    tail.push([lineNo, raw]);
    if (tail.length > 2 * TRIAGE.tail) tail.splice(0, tail.length - TRIAGE.tail);
    if (!ERROR_RE.test(raw)) return;
    var segments = raw.split("\r");
    for (var s = 0; s < segments.length; s++) {
      if (!ERROR_RE.test(segments[s])) continue;
      var text = segments[s].slice(0, MAX_TEXT);
      this.keep({ file: this.tails[this.index].name, line: lineNo, text: text, timestamp: timestampOf(text), order: [this.index, lineNo] });
      return;
    }
  };

  Triage.prototype.keep = function (item) {
    var key = normalizeLine(item.text).replace(/[0-9]+/g, "#"), order = evidenceKey(item), kept = this.kept;
    for (var i = 0; i < kept.length; i++) {
      if (kept[i].key !== key) continue;
      if (compareKeys(order, evidenceKey(kept[i].item)) >= 0) return;
      kept.splice(i, 1);
      break;
    }
    if (kept.length >= TRIAGE.lines && compareKeys(order, evidenceKey(kept[kept.length - 1].item)) >= 0) return;
    var at = 0;
    while (at < kept.length && compareKeys(order, evidenceKey(kept[at].item)) >= 0) at++;
    kept.splice(at, 0, { key: key, item: item });
    kept.length = Math.min(kept.length, TRIAGE.lines);
  };

  function rankGroups(tail) {
    var groups = {}, ranks = [];
    tail.lines.slice(-TRIAGE.tail).forEach(function (entry) {
      var shown = entry[1].replace(/\r+$/, "").split("\r").pop().replace(TRAILING, "").slice(0, MAX_TEXT);
      if (!shown) return;
      var rank = rankOf(entry[1]), k = rank === null ? "-" : String(rank);
      if (!groups[k]) { groups[k] = []; ranks.push(rank); }
      groups[k].push({ line: entry[0], text: shown });
    });
    ranks.sort(function (a, b) { return (a === null ? -1 : a) - (b === null ? -1 : b); });
    return ranks.map(function (rank) {
      return { file: tail.name, rank: rank, lines: groups[rank === null ? "-" : String(rank)].slice(-TRIAGE.rankLines) };
    });
  }

  function searchText(text) {
    var q = normalizeLine(text);
    if (q.length > TRIAGE.query) {
      q = q.slice(0, TRIAGE.query);
      var space = q.lastIndexOf(" ");
      if (space >= 0) q = q.slice(0, space);
    }
    return q;
  }

  function slugOf(text) {
    var words = (normalizeLine(text).replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase().match(/[a-z0-9]+/g) || [])
      .filter(function (w) { return !/^[0-9]+$/.test(w); });
    var slug = words.slice(0, 6).join("-");
    while (slug.length > 48 && slug.indexOf("-") >= 0) slug = slug.slice(0, slug.lastIndexOf("-"));
    return slug.slice(0, 48) || "new-failure";
  }

  function shellQuote(text) {
    if (!text) return "''";
    return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(text) ? text : "'" + text.replace(/'/g, "'\"'\"'") + "'";
  }

  /* The --json shape of `failpedia diagnose` (triage, without the site URL: the page links its own search). */
  Triage.prototype.report = function () {
    var lines = this.kept.map(function (k) { return k.item; });
    var groups = [];
    this.tails.forEach(function (tail) { if (tail) groups = groups.concat(rankGroups(tail)); });
    var telling = lines.filter(function (i) { return normalizeLine(i.text).indexOf("Traceback") !== 0; });
    var key = telling.filter(function (i) { return RAISED_RE.test(normalizeLine(i.text)); })[0] || telling[0] || null;
    var first = key ? key.file : lines.length ? lines[0].file : groups.length ? groups[0].file : null;
    var file = first === null || NOT_FILES[first] ? "LOG-FILE" : first;
    var id = key ? slugOf(key.text) : "new-failure";
    return {
      lines: lines.map(function (i) { return { file: i.file, line: i.line, text: i.text, timestamp: i.timestamp || null }; }),
      tails: groups.slice(0, TRIAGE.groups),
      omitted_groups: Math.max(groups.length - TRIAGE.groups, 0),
      key_line: key ? { file: key.file, line: key.line } : null,
      search: { query: key ? searchText(key.text) : "", url: null },
      new_command: "failpedia new " + id + " --category CATEGORY --from-log " + shellQuote(file)
    };
  };

  /* Convenience: scan whole texts [{name, text}] and rank (the scanner is kept for its triage). */
  function diagnoseTexts(library, files, scanner) {
    scanner = scanner || new Scanner(library);
    files.forEach(function (file) {
      scanner.startFile(file.name);
      var lines = file.text.split("\n");
      if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop(); /* no line follows a final newline */
      for (var i = 0; i < lines.length; i++) scanner.scanLine(lines[i], i + 1);
    });
    return scanner.rank();
  }

  /* The site search box: lunr reads ":" as a field, "-" and "+" as presence, "~", "^" and "*"
   * as operators, and a pasted log line is full of them and of other punctuation. Every
   * character the search separator splits on anyway (all but letters, digits, "_" and ".")
   * becomes a space, so the words are the same and the syntax is gone. The theme splits a
   * query at spaces before the separator sees it, so the one-digit code of "error 2" is
   * joined to its word by an invisible word joiner (U+2060), at which the separator splits
   * and after which it keeps a digit as a word. */
  function searchQuery(text) {
    return text.replace(/[^A-Za-z0-9_.\s\u00c0-\uffff]+/g, " ").replace(/\b([Ee]rror) +([0-9])\b/g, "$1\u2060$2");
  }

  var api = {
    normalizeLine: normalizeLine, lineHost: lineHost, timestampOf: timestampOf, Scanner: Scanner, diagnoseTexts: diagnoseTexts,
    compileLibrary: compileLibrary, judgeCauses: judgeCauses, causeLines: causeLines, searchQuery: searchQuery, NeedleSearch: NeedleSearch, Triage: Triage
  };
  root.FailpediaCore = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof self !== "undefined" ? self : this);
