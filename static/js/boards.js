// Board bar: on a phone the chips are one scrollable row; bring the shown board's chip into it.
(function () {
  "use strict";
  var row = document.querySelector(".board-chips");
  var current = row && row.querySelector("[aria-current]");
  if (!current || row.scrollWidth <= row.clientWidth) return;
  row.scrollLeft = current.offsetLeft - row.offsetLeft - 12;
})();
