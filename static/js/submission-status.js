// Poll the submission's status while it is queued or running; reload once it is done so
// the page shows the results or the problems. The <meta refresh> is the no-JS fallback.
(function () {
  "use strict";
  var box = document.querySelector("[data-status-url]");
  if (!box || box.getAttribute("data-pending") !== "true") { return; }
  var meta = document.querySelector("meta[http-equiv=refresh]");
  if (meta) { meta.parentNode.removeChild(meta); }
  var statusEl = box.querySelector("[data-status]");
  var progressEl = box.querySelector("[data-progress]");
  var delay = 1000;
  function poll() {
    fetch(box.getAttribute("data-status-url"), { headers: { "Accept": "application/json" },
                                                  credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) { delay = Math.min(delay * 2, 30000); return; }
        statusEl.textContent = data.status;
        statusEl.className = "status status-" + data.status;
        progressEl.textContent = data.progress ? "(" + data.progress + ")" : "";
        if (data.done) { window.location.reload(); return "done"; }
        delay = Math.min(delay * 1.5, 5000);
      })
      .catch(function () { delay = Math.min(delay * 2, 30000); })
      .then(function (outcome) { if (outcome !== "done") { window.setTimeout(poll, delay); } });
  }
  window.setTimeout(poll, delay);
})();
