/* Draw every plotly figure whose JSON the server embedded as <script type="application/json">
   next to a .chart[data-figure] element. No inline scripts: the figures are data only. */
(function () {
  "use strict";
  function draw() {
    if (!window.Plotly) { return; }
    Array.prototype.forEach.call(document.querySelectorAll(".chart[data-figure]"), function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      if (!source) { return; }
      var fig = JSON.parse(source.textContent);
      window.Plotly.newPlot(el, fig.data, fig.layout, { responsive: true, displaylogo: false });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
