/* Inside offline-frame.html: runs one worker script of this site as if it were a Web Worker,
 * for a page opened from disk (see offline.js). */
(function () {
  "use strict";
  var folder = new URL("./", location.href).href;
  var script = new URL(new URLSearchParams(location.search).get("worker") || "", location.href);
  /* Only this site's own worker scripts run here. */
  if (script.href.indexOf(folder) !== 0 || !/\.js$/.test(script.pathname)) return;
  var host = window.parent;
  /* The page is another origin (every file is one): hide it from the worker, which would
   * otherwise read a property of it and fail. */
  window.parent = undefined;
  window.postMessage = function (data) { host.postMessage(data, "*"); };
  window.importScripts = function () {
    var urls = Array.prototype.slice.call(arguments);
    return urls.reduce(function (done, url) {
      return done.then(function () {
        return new Promise(function (resolve, reject) {
          var s = document.createElement("script");
          s.src = url;
          s.onload = resolve;
          s.onerror = reject;
          document.head.appendChild(s);
        });
      });
    }, Promise.resolve());
  };
  var s = document.createElement("script");
  s.src = script.href;
  s.onload = function () { host.postMessage("failpedia-frame-ready", "*"); };
  document.head.appendChild(s);
})();
