/* Instant client-side sorting of the ranking table. The server renders the same order from
   the header links (?sort=key&dir=...), so the page works without this script; here we only
   avoid the round trip and keep the URL shareable with history.replaceState. */
(function () {
  "use strict";
  var table = document.getElementById("ranking");
  var body = document.getElementById("systems");
  if (!table || !body || !window.URL || !window.history) { return; }
  // A page of a larger board: only the server can sort all of its rows.
  if (table.getAttribute("data-paged") === "true") { return; }
  // Header cells that sort, with their column index in the body rows (data-col: the head
  // has two rows in the grouped "All metrics" view, so positions do not match).
  var headers = Array.prototype.slice.call(table.tHead.querySelectorAll("th[data-col]"));
  var serverSort = table.getAttribute("data-sort");
  var serverDir = table.getAttribute("data-dir");

  function cellValue(row, index, type) {
    var cell = row.cells[index];
    var raw = cell ? cell.getAttribute("data-value") : null;
    if (type === "num") {
      var n = parseFloat(raw);
      return isNaN(n) ? null : n;
    }
    return raw === null ? "" : raw.toLowerCase();
  }

  function sortBy(th, dir) {
    var index = parseInt(th.getAttribute("data-col"), 10);
    var type = th.getAttribute("data-type");
    var rows = Array.prototype.slice.call(body.rows);
    if (rows.length < 2 || !rows[0].cells[index]) { return false; }
    var base = rows.map(function (row, i) { return { row: row, i: i, v: cellValue(row, index, type) }; });
    // Keep the current order among equal values (stable), missing values last.
    base.sort(function (a, b) {
      if (a.v === b.v) { return a.i - b.i; }
      if (a.v === null) { return 1; }
      if (b.v === null) { return -1; }
      var c = a.v < b.v ? -1 : 1;
      return dir === "asc" ? c : -c;
    });
    var frag = document.createDocumentFragment();
    base.forEach(function (item) { frag.appendChild(item.row); });
    body.appendChild(frag);
    headers.forEach(function (h) {
      if (h !== th) { h.removeAttribute("aria-sort"); }
      var link = h.querySelector("a.sort");
      if (link && h !== th) {
        var u = new URL(link.href, window.location.href);
        var key = h.getAttribute("data-key");
        u.searchParams.set("dir", (key === "rank" || h.getAttribute("data-type") === "text") ? "asc" : "desc");
        link.href = u.toString();
      }
    });
    th.setAttribute("aria-sort", dir === "asc" ? "ascending" : "descending");
    // Tie marks refer to the order the server rendered: hide them in any other order.
    var same = th.getAttribute("data-key") === serverSort && dir === serverDir;
    Array.prototype.forEach.call(body.querySelectorAll(".tie"), function (mark) {
      mark.hidden = !same;
    });
    return true;
  }

  table.tHead.addEventListener("click", function (event) {
    var link = event.target.closest("a.sort");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var th = link.closest("th");
    var url = new URL(link.href, window.location.href);
    var dir = url.searchParams.get("dir") || "desc";
    var key = th.getAttribute("data-key");
    // Rank sorts by the numeric rank cell: ascending rank is the best-first order.
    if (!sortBy(th, dir)) { return; }
    event.preventDefault();
    window.history.replaceState(null, "", url.toString());
    url.searchParams.set("dir", dir === "asc" ? "desc" : "asc");
    link.href = url.toString();
    var status = document.getElementById("sort-status");
    var label = (link.getAttribute("title") || link.textContent).split(":")[0].trim();
    var words = "sorted by " + label + " (" + (dir === "asc" ? "ascending" : "descending") + ")";
    if (status) { status.textContent = "Sorted by " + label + ", " + (dir === "asc" ? "ascending" : "descending"); }
    var caption = document.getElementById("sort-caption");
    if (caption) { caption.textContent = words; }
    if (key) { table.setAttribute("data-sort", key); }
    // Downloads follow the order on screen.
    Array.prototype.forEach.call(document.querySelectorAll(".downloads a[download]"), function (a) {
      var d = new URL(a.href, window.location.href);
      d.searchParams.set("sort", key);
      d.searchParams.set("dir", dir);
      a.href = d.toString();
    });
  });
})();
