/* Instant filter of the ranking by system or team name. The form also works without this
   script (?q= filters on the server, with the same case-insensitive "contains" test). */
(function () {
  "use strict";
  var input = document.getElementById("filter-q");
  var body = document.getElementById("systems");
  if (!input || !body) { return; }
  // A page of a larger board: the form filters all of its rows on the server.
  var table = document.getElementById("ranking");
  if (table && table.getAttribute("data-paged") === "true") { return; }
  var status = document.getElementById("sort-status");
  function apply() {
    var needle = input.value.trim().toLowerCase();
    var shown = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var system = row.querySelector("th[data-value]");
      if (!system) { return; }
      var team = row.cells.length ? row.querySelector("td a[href*='/teams/']") : null;
      var text = (system.getAttribute("data-value") + " " + (team ? team.textContent : "")).toLowerCase();
      var match = !needle || text.indexOf(needle) !== -1;
      row.hidden = !match;
      if (match) { shown += 1; }
    });
    if (status) { status.textContent = shown + " rows shown"; }
    if (window.URL && window.history) {
      var url = new URL(window.location.href);
      if (needle) { url.searchParams.set("q", input.value.trim()); } else { url.searchParams.delete("q"); }
      window.history.replaceState(null, "", url.toString());
    }
  }
  input.addEventListener("input", apply);
})();
