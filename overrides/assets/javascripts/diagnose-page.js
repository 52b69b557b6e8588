/* The /diagnose/ page: paste or choose logs, match them in a Web Worker, show ranked findings.
 * Nothing is uploaded: the only requests are for this site's own static files. */
(function () {
  "use strict";
  var input = document.getElementById("log-input");
  var files = document.getElementById("log-files");
  var button = document.getElementById("diagnose-run");
  var status = document.getElementById("diagnose-status");
  var bar = document.getElementById("diagnose-progress");
  var out = document.getElementById("findings");
  var base = new URL(".", document.querySelector("script[src*='diagnose-page.js']").src);
  var libraryPromise = null;

  function library() {
    if (!libraryPromise) libraryPromise = window.FailpediaLibrary.load(base);
    return libraryPromise;
  }

  var el = window.FailpediaDom.el;

  function recordHref(id) {
    return new URL("../../entries/" + encodeURIComponent(id) + "/", base).href;
  }

  function render(result) {
    out.textContent = "";
    result.notes.forEach(function (note) { out.appendChild(el("p", { "class": "fp-note" }, note)); });
    if (!result.findings.length) {
      out.appendChild(el("p", { "class": "fp-none" }, "No known failure signature matched."));
      if (result.triage) out.appendChild(window.FailpediaDom.triage(result.triage, base));
    }
    result.findings.slice(0, 10).forEach(function (f, i) {
      var card = el("article", { "class": "fp-finding fp-" + f.role, "data-finding-id": f.id });
      var h = el("h3");
      h.appendChild(document.createTextNode((i + 1) + ". "));
      h.appendChild(el("a", { href: recordHref(f.id) }, f.title || f.id));
      h.appendChild(el("span", { "class": "fp-role" }, " " + f.role + " · score " + f.score));
      card.appendChild(h);
      var list = el("ul", { "class": "fp-evidence" });
      f.evidence.forEach(function (e) {
        var li = el("li");
        li.appendChild(el("span", { "class": "fp-where" }, e.file + ":" + e.line + ": "));
        li.appendChild(el("mark", {}, e.text));
        list.appendChild(li);
      });
      card.appendChild(list);
      card.appendChild(window.FailpediaDom.causes(f));
      if (f.fix) card.appendChild(el("p", {}, "First fix: " + f.fix));
      out.appendChild(card);
    });
  }

  function finish(result) {
    render(result);
    bar.hidden = true;
    status.textContent = result.findings.length ? result.findings.length + " finding(s)" : "Nothing matched";
    button.disabled = false;
    out.setAttribute("data-state", "done");
  }

  function fail(message) {
    finish({ findings: [], notes: [message] });
    status.textContent = message;
  }

  function progress(done, total) {
    if (!total) return;
    bar.hidden = false;
    bar.value = done / total;
    status.textContent = "Scanning " + Math.round((100 * done) / total) + "%";
  }

  function startWorker(job) {
    var worker;
    try {
      worker = new Worker(new URL("diagnose-worker.js", base));
    } catch (error) {
      return null;
    }
    worker.onmessage = function (event) {
      var msg = event.data;
      if (msg.type === "progress") progress(msg.done, msg.total);
      else if (msg.type === "done") { worker.terminate(); finish(msg); }
      else { worker.terminate(); fail("The diagnosis failed: " + msg.message); }
    };
    worker.onerror = function (event) {
      event.preventDefault();
      worker.terminate();
      window.FailpediaReader.run(job, progress).then(finish, function (e) { fail(String(e)); });
    };
    worker.postMessage(job);
    return worker;
  }

  button.addEventListener("click", function () {
    var chosen = Array.prototype.slice.call(files.files || []);
    var text = input.value;
    if (!text.trim() && !chosen.length) {
      out.setAttribute("data-state", "done");
      out.textContent = "";
      out.appendChild(el("p", { "class": "fp-note" }, "Paste a log or choose log files first."));
      status.textContent = "Nothing to diagnose";
      return;
    }
    button.disabled = true;
    out.setAttribute("data-state", "running");
    status.textContent = "Loading signatures";
    library().then(function (lib) {
      var job = { library: lib, text: text, files: chosen };
      if (!startWorker(job)) window.FailpediaReader.run(job, progress).then(finish, function (e) { fail(String(e)); });
    }, function () {
      fail("The signature library could not be loaded.");
    });
  });
})();
