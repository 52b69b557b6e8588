/* Site-wide behaviour: the signature library loader, the "Is this what broke your run?"
 * box on record pages, sortable and filterable comparison tables, and the home search box. */
(function () {
  "use strict";
  var here = document.querySelector("script[src*='failpedia.js']");
  var base = here ? new URL(".", here.src) : new URL("./", location.href);

  /* Loads /api/v1/signatures.json; on file:// (no fetch), the same data as signatures.js. */
  window.FailpediaLibrary = {
    load: function (scriptBase) {
      var root = new URL("../../", scriptBase || base);
      var json = new URL("api/v1/signatures.json", root);
      return fetch(json).then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      }).catch(function () {
        return new Promise(function (resolve, reject) {
          var s = document.createElement("script");
          s.src = new URL("api/v1/signatures.js", root).href;
          s.onload = function () { window.FAILPEDIA_LIBRARY ? resolve(window.FAILPEDIA_LIBRARY) : reject(new Error("no library")); };
          s.onerror = reject;
          document.head.appendChild(s);
        });
      });
    }
  };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* The answer when nothing matched (FailpediaCore's Triage report): the log's most error-like
   * lines and each rank's last lines as found, a site search for the key line, and the command
   * that starts a record. It names no cause. */
  function triageBox(triage, scriptBase) {
    var box = el("section", { "class": "fp-triage", "data-triage": "" });
    if (triage.lines.length) {
      box.appendChild(el("p", {}, "Lines that look most like errors, first by time (shown as found, not a diagnosis):"));
      var ul = el("ul", { "class": "fp-triage-lines" });
      triage.lines.forEach(function (i) { ul.appendChild(el("li", {}, i.file + ":" + i.line + ": " + i.text)); });
      box.appendChild(ul);
    } else {
      box.appendChild(el("p", {}, "No line looks like an error."));
    }
    if (triage.tails.length) box.appendChild(el("p", {}, "Last lines of each rank:"));
    triage.tails.forEach(function (g) {
      box.appendChild(el("p", { "class": "fp-triage-rank" }, g.file + ", " + (g.rank === null ? "no rank" : "rank " + g.rank) + ":"));
      var pre = el("pre", { "class": "fp-triage-tail" }, g.lines.map(function (l) { return l.line + ": " + l.text; }).join("\n"));
      box.appendChild(pre);
    });
    if (triage.omitted_groups) box.appendChild(el("p", {}, "(+" + triage.omitted_groups + " more ranks)"));
    if (triage.search.query) {
      var p = el("p", {}, "Search for the key line: ");
      var href = new URL("../../?q=" + encodeURIComponent(triage.search.query), scriptBase || base).href;
      p.appendChild(el("a", { href: href, "class": "fp-triage-search" }, triage.search.query));
      box.appendChild(p);
    }
    var start = el("p", {}, "Start a record from this log: ");
    start.appendChild(el("code", { "class": "fp-triage-new" }, triage.new_command));
    box.appendChild(start);
    return box;
  }

  /* A finding's causes as the log orders them (FailpediaCore.causeLines: the CLI's words), then every
   * cause with its verdict and the lines or versions that decided it. */
  function causesBox(finding) {
    var box = el("div", { "class": "fp-causes" });
    window.FailpediaCore.causeLines(finding).forEach(function (text) { box.appendChild(el("p", { "class": "fp-cause" }, text)); });
    if ((finding.causes || []).length < 2) return box;
    var all = el("details", { "class": "fp-cause-list" });
    all.appendChild(el("summary", {}, "All " + finding.causes.length + " causes, as this log orders them"));
    var ol = el("ol");
    finding.causes.forEach(function (c) {
      var li = el("li", { "data-verdict": c.verdict }, c.title + " (" + c.verdict + ")");
      if (c.reasons.length) {
        var why = el("ul");
        c.reasons.forEach(function (r) { why.appendChild(el("li", {}, r)); });
        li.appendChild(why);
      }
      ol.appendChild(li);
    });
    all.appendChild(ol);
    box.appendChild(all);
    return box;
  }

  window.FailpediaDom = { el: el, triage: triageBox, causes: causesBox };

  function entryBox(card) {
    var id = card.getAttribute("data-entry-id");
    var box = el("details", { "class": "fp-check" });
    box.appendChild(el("summary", {}, "Is this what broke your run? Paste your log"));
    var area = el("textarea", { rows: "6", spellcheck: "false", "aria-label": "Log to check against this record" });
    var go = el("button", { type: "button", "class": "md-button" }, "Check");
    var result = el("div", { "class": "fp-check-result", "aria-live": "polite" });
    box.appendChild(area);
    box.appendChild(go);
    box.appendChild(result);
    card.parentNode.insertBefore(box, card.nextSibling);
    go.addEventListener("click", function () {
      result.textContent = "";
      if (!area.value.trim()) { result.appendChild(el("p", {}, "Paste a few lines of your log first.")); return; }
      window.FailpediaLibrary.load(base).then(function (lib) {
        var scanner = new window.FailpediaCore.Scanner(lib);
        var findings = window.FailpediaCore.diagnoseTexts(lib, [{ name: "pasted", text: area.value }], scanner);
        var mine = findings.filter(function (f) { return f.id === id; })[0];
        var top = findings[0];
        if (mine) {
          result.appendChild(el("p", { "class": "fp-yes" }, "Yes: this record's signatures match these lines:"));
          var ul = el("ul");
          mine.evidence.forEach(function (e) { ul.appendChild(el("li", {}, "line " + e.line + ": " + e.text)); });
          result.appendChild(ul);
          result.appendChild(causesBox(mine));
        } else {
          result.appendChild(el("p", { "class": "fp-no" }, "No: none of this record's signatures match."));
        }
        if (top && top.id !== id) {
          var p = el("p", {}, "A better fit: ");
          p.appendChild(el("a", { href: new URL("../../entries/" + top.id + "/", base).href }, top.title));
          p.appendChild(document.createTextNode(" (" + top.role + "). "));
          p.appendChild(el("a", { href: new URL("../../diagnose/", base).href }, "Diagnose the whole log"));
          result.appendChild(p);
        }
        if (!top) result.appendChild(triageBox(scanner.triage.report(), base));
      }, function () { result.appendChild(el("p", {}, "The signature library could not be loaded.")); });
    });
  }

  function cellText(row, index) {
    var cell = row.cells[index];
    return cell ? cell.textContent.trim() : "";
  }

  function applyTable(table, state) {
    var q = (state.q || "").toLowerCase();
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.filter.call(body.rows, function (r) { return !r.classList.contains("fp-section"); });
      if (state.sort !== undefined && state.sort !== null && state.sort !== "") {
        var col = Number(state.sort);
        var dir = state.dir === "desc" ? -1 : 1;
        rows.sort(function (a, b) {
          return dir * cellText(a, col).localeCompare(cellText(b, col), undefined, { numeric: true });
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      var shown = 0;
      rows.forEach(function (r) {
        var hit = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
        r.hidden = !hit;
        if (hit) shown++;
      });
      Array.prototype.forEach.call(body.rows, function (r) {
        if (r.classList.contains("fp-section")) r.hidden = shown === 0;
      });
    });
  }

  function readState() {
    var p = new URLSearchParams(location.search);
    return { q: p.get("filter") || "", sort: p.get("sort"), dir: p.get("dir") || "asc" };
  }

  function writeState(state) {
    var p = new URLSearchParams();
    if (state.q) p.set("filter", state.q);
    if (state.sort !== null && state.sort !== undefined && state.sort !== "") { p.set("sort", state.sort); p.set("dir", state.dir); }
    var qs = p.toString();
    history.replaceState(null, "", location.pathname + (qs ? "?" + qs : "") + location.hash);
  }

  function tableTools(table) {
    var state = readState();
    var tools = document.querySelector(".fp-table-tools") || table.parentNode.insertBefore(el("div"), table);
    var filter = el("input", { type: "search", "class": "fp-filter", placeholder: tools.getAttribute("data-hint") || "Filter rows", "aria-label": "Filter the table" });
    filter.value = state.q;
    tools.appendChild(filter);
    filter.addEventListener("input", function () { state.q = filter.value; applyTable(table, state); writeState(state); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.setAttribute("role", "button");
      th.setAttribute("tabindex", "0");
      th.classList.add("fp-sortable");
      function sort() {
        state.dir = String(state.sort) === String(index) && state.dir === "asc" ? "desc" : "asc";
        state.sort = String(index);
        applyTable(table, state);
        writeState(state);
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
    applyTable(table, state);
  }

  function homeSearch(box) {
    var field = el("input", { type: "search", id: "fp-home-query", "class": "fp-home-query", placeholder: "Paste the exact line from your log", "aria-label": "Search Failpedia" });
    box.appendChild(field);
    field.addEventListener("input", function () {
      var toggle = document.querySelector("[data-md-toggle=search]");
      var search = document.querySelector("[data-md-component=search-query]");
      if (!toggle || !search) return;
      toggle.checked = true;
      toggle.dispatchEvent(new Event("change"));
      search.value = field.value;
      search.focus();
      search.dispatchEvent(new Event("input", { bubbles: true }));
      field.value = "";
    });
  }

  /* Pasted log lines lose the punctuation lunr would read as query syntax (see searchQuery). */
  function plainQuery(event) {
    var box = event.target;
    if (!box || !box.matches || !box.matches("[data-md-component=search-query]") || !window.FailpediaCore) return;
    var cleaned = window.FailpediaCore.searchQuery(box.value);
    if (cleaned !== box.value) box.value = cleaned;
  }
  document.addEventListener("input", plainQuery, true);
  document.addEventListener("keyup", plainQuery, true);

  function start() {
    var card = document.querySelector(".fp-quick[data-entry-id]");
    if (card && window.FailpediaCore) entryBox(card);
    Array.prototype.forEach.call(document.querySelectorAll("table.fp-compare"), tableTools);
    var home = document.getElementById("fp-home-search");
    if (home && !home.firstChild) homeSearch(home);
  }

  if (window.document$ && window.document$.subscribe) window.document$.subscribe(start);
  else document.addEventListener("DOMContentLoaded", start);
})();
