/* Rows that scroll sideways on a phone (the shown board's tags, the board chips, the view and
   POS switchers) fade at the edge that has more to show: data-more-left / data-more-right say
   which (CSS draws the fade), so a cut label reads as "more this way", not as its end. */
(function () {
  "use strict";
  function mark(row) {
    var max = row.scrollWidth - row.clientWidth;
    row.toggleAttribute("data-more-left", max > 1 && row.scrollLeft > 1);
    row.toggleAttribute("data-more-right", max > 1 && row.scrollLeft < max - 1);
  }
  var rows = document.querySelectorAll(".board-shown, .board-chips, .controls .segmented ul");
  Array.prototype.forEach.call(rows, function (row) {
    mark(row);
    row.addEventListener("scroll", function () { mark(row); }, { passive: true });
  });
  window.addEventListener("resize", function () { Array.prototype.forEach.call(rows, mark); });
})();
