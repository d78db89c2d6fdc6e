/* On a phone the ranking's switchers are rows scrolled sideways: bring the current choice
   into view (a view further right, e.g. "All metrics", would otherwise be hidden). */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll(".controls .segmented ul"), function (ul) {
    var current = ul.querySelector("[aria-current]");
    if (!current || ul.scrollWidth <= ul.clientWidth) { return; }
    var offset = current.getBoundingClientRect().right - ul.getBoundingClientRect().right;
    if (offset > 0) { ul.scrollLeft += offset + 8; }
  });
})();
