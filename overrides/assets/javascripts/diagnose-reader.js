/* Reads pasted text and files line by line into a FailpediaCore.Scanner, in chunks, with
 * progress; shared by the Web Worker and the page's fallback when no worker can start. */
(function (root) {
  "use strict";
  var CHUNK = 4 << 20;
  var MAX_LINE = 1 << 20;
  var OVERLAP = 4096;
  var SNIFF = 8192;

  function LineFeeder(scanner, notes, name) {
    this.scanner = scanner;
    this.notes = notes;
    this.name = name;
    this.carry = "";
    this.lineNo = 1;
    this.longNoted = false;
  }

  LineFeeder.prototype.push = function (text) {
    var data = this.carry + text;
    var lines = data.split("\n");
    this.carry = lines.pop();
    for (var i = 0; i < lines.length; i++) {
      this.scanner.scanLine(lines[i], this.lineNo);
      this.lineNo += 1;
    }
    if (this.carry.length > MAX_LINE) {
      if (!this.longNoted) this.notes.push(this.name + ": a line longer than " + MAX_LINE + " characters was scanned in overlapping windows");
      this.longNoted = true;
      this.scanner.scanLine(this.carry, this.lineNo);
      this.carry = this.carry.slice(-OVERLAP);
    }
  };

  LineFeeder.prototype.end = function () {
    if (this.carry) this.scanner.scanLine(this.carry, this.lineNo);
    this.carry = "";
  };

  function looksBinary(bytes) {
    if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) return false;
    var nul = 0;
    for (var i = 0; i < bytes.length; i++) if (bytes[i] === 0) nul++;
    return bytes.length > 0 && nul / bytes.length > 0.1;
  }

  function encodingOf(bytes) {
    if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
    if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
    return "utf-8";
  }

  /* Reads one File/Blob; resolves when done. progress(bytesDone) after each chunk. */
  function readFile(file, scanner, notes, progress) {
    scanner.startFile(file.name);
    var feeder = new LineFeeder(scanner, notes, file.name);
    return file.slice(0, SNIFF).arrayBuffer().then(function (head) {
      var bytes = new Uint8Array(head);
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        notes.push(file.name + ": gzip files are read by the command line (failpedia diagnose); decompress it to paste here");
        return;
      }
      if (looksBinary(bytes)) {
        notes.push(file.name + ": binary file (not a text log); skipped");
        return;
      }
      var decoder = new TextDecoder(encodingOf(bytes));
      var offset = 0;
      function next() {
        if (offset >= file.size) {
          feeder.push(decoder.decode());
          feeder.end();
          return Promise.resolve();
        }
        var end = Math.min(offset + CHUNK, file.size);
        return file.slice(offset, end).arrayBuffer().then(function (buf) {
          feeder.push(decoder.decode(new Uint8Array(buf), { stream: true }));
          offset = end;
          progress(end);
          return next();
        });
      }
      return next();
    });
  }

  function readText(name, text, scanner, notes) {
    scanner.startFile(name);
    var feeder = new LineFeeder(scanner, notes, name);
    for (var at = 0; at < text.length; at += CHUNK) feeder.push(text.slice(at, at + CHUNK));
    feeder.end();
  }

  /* Runs a whole diagnosis: {library, text, files} -> {findings, notes}. */
  function run(job, progress) {
    var scanner = new root.FailpediaCore.Scanner(job.library);
    var notes = [];
    if (job.text && job.text.trim()) readText("pasted log", job.text, scanner, notes);
    var total = (job.files || []).reduce(function (sum, f) { return sum + f.size; }, 0);
    var before = 0;
    var chain = Promise.resolve();
    (job.files || []).forEach(function (file) {
      chain = chain.then(function () {
        var start = before;
        before += file.size;
        return readFile(file, scanner, notes, function (done) { progress(start + done, total); });
      });
    });
    return chain.then(function () {
      var findings = scanner.rank();
      return { findings: findings, notes: notes, triage: findings.length ? null : scanner.triage.report() };
    });
  }

  root.FailpediaReader = { run: run };
})(typeof self !== "undefined" ? self : this);
