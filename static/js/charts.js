/* Draw every plotly figure whose JSON the server embedded as <script type="application/json">
   next to a .chart[data-figure] element. No inline scripts: the figures are data only.
   On a phone-sized chart the margins and fonts shrink so titles and axes fit. */
(function () {
  "use strict";
  function fitNarrow(el, layout) {
    if (el.clientWidth >= 560) { return; }
    layout.margin = { l: 44, r: 8, t: 64, b: 56 };
    layout.font = Object.assign({}, layout.font || {}, { size: 11 });
    if (layout.title && layout.title.font) { layout.title.font.size = 13; }
    if (layout.legend) { layout.legend.font = { size: 10 }; }
    if (el.getAttribute("data-narrow-ticks") === "numbers" && layout.xaxis) {
      layout.xaxis.showticklabels = false;
    }
    // F=20, 40 and 60 only: at phone width the labels ran into each other, and F=80 into
    // the names of the top systems at the top right.
    (layout.annotations || []).forEach(function (a) {
      var f = a.name === "iso-f" ? parseInt(a.text.slice(2), 10) : 0;
      if (f && (f % 20 || f >= 80)) { a.visible = false; }
      // The labels kept sit in the right margin, which must hold them.
      if (f) { layout.margin.r = 34; }
      if (!f) { fitLabel(a, el.clientWidth - layout.margin.l - layout.margin.r); }
    });
  }
  // A line's label wider than the plot ran past the y axis and was cut at the left edge
  // ("Wada et al. (DeBERTa-V3, …) (reported, not re-scored)"): cut the name to the plot's
  // width, keep its closing "(…)" note, and give the whole text on hover.
  function fitLabel(a, width) {
    var text = typeof a.text === "string" ? a.text : "";
    var fits = Math.floor(width / 6);  // 10 px labels: about 5.3 px a character
    if (text.length <= fits || text.indexOf("<") !== -1) { return; }
    var note = text.match(/ \([^()]*\)$/);
    var tail = note && note[0].length <= fits - 16 ? note[0] : "";
    var head = text.slice(0, text.length - tail.length);
    a.hovertext = text;
    a.text = head.slice(0, Math.max(fits - tail.length - 1, 4)).replace(/\s+$/, "") + "…" + tail;
  }
  function draw() {
    if (!window.Plotly) { return; }
    Array.prototype.forEach.call(document.querySelectorAll(".chart[data-figure]"), function (el) {
      var source = document.getElementById(el.getAttribute("data-figure"));
      if (!source) { return; }
      var fig = JSON.parse(source.textContent);
      fitNarrow(el, fig.layout);
      window.Plotly.newPlot(el, fig.data, fig.layout, { responsive: true, displaylogo: false });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
