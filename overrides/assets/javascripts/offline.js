/* A copy of the site opened from disk (file://), where browsers refuse what a server allows:
 * - links to directories (entries/x/) open a listing, so they get index.html added;
 * - a Web Worker cannot start from a file, so the theme's search worker runs in a hidden
 *   frame (offline-frame.html) that talks to this page by postMessage.
 * Over http(s) this script does nothing. */
(function () {
  "use strict";
  if (location.protocol !== "file:") return;
  var here = document.currentScript ? document.currentScript.src : location.href;
  var frameUrl = new URL("offline-frame.html", here);

  /* Returns the file:// URL of a directory link with index.html added, or null. */
  function fileUrl(href) {
    var url = new URL(href, location.href);
    if (url.protocol !== "file:" || url.pathname.slice(-1) !== "/") return null;
    url.pathname += "index.html";
    return url.href;
  }

  function fixLink(a) {
    var target = a.getAttribute("href");
    if (!target || target.charAt(0) === "#") return;
    var fixed = fileUrl(a.href);
    if (fixed) a.href = fixed;
  }

  /* Links the theme adds later (search results) are fixed when they are used. */
  function onUse(event) {
    var a = event.target && event.target.closest ? event.target.closest("a[href]") : null;
    if (a) fixLink(a);
  }
  ["click", "auxclick", "keydown"].forEach(function (name) { document.addEventListener(name, onUse, true); });
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("a[href]"), fixLink);
  });

  var NativeWorker = window.Worker;
  /* The search worker in a frame; any other worker is left to the browser (and its fallback). */
  function FrameWorker(url) {
    if (!/\/workers\/search\.[0-9a-f]+\.min\.js$/.test(String(url))) return new NativeWorker(url);
    var self = this;
    var target = new EventTarget();
    var queue = [];
    var ready = false;
    var frame = document.createElement("iframe");
    frame.hidden = true;
    frame.src = frameUrl.href + "?worker=" + encodeURIComponent(new URL(url, location.href).href);
    window.addEventListener("message", function (event) {
      if (event.source !== frame.contentWindow) return;
      if (event.data === "failpedia-frame-ready") { ready = true; queue.splice(0).forEach(send); return; }
      var message = new MessageEvent("message", { data: event.data });
      target.dispatchEvent(message);
      if (self.onmessage) self.onmessage(message);
    });
    function send(data) { frame.contentWindow.postMessage(data, "*"); }
    this.postMessage = function (data) { if (ready) send(data); else queue.push(data); };
    this.addEventListener = target.addEventListener.bind(target);
    this.removeEventListener = target.removeEventListener.bind(target);
    this.terminate = function () { frame.remove(); };
    (document.body || document.documentElement).appendChild(frame);
  }
  window.Worker = FrameWorker;
})();
