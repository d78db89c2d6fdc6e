/* Copy buttons (data-copy="<id>" of an input, or of a block such as a BibTeX entry) and
   select-on-focus for read-only token fields. Our CSP forbids inline handlers (onfocus=...),
   so this lives in its own file. A button hidden in the markup is shown here: it works only
   where this script runs. */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("input.token-value"), function (field) {
    field.addEventListener("focus", function () { field.select(); });
  });
  function select(field) {
    if (field.select) { field.select(); return field.value; }
    var range = document.createRange();
    range.selectNodeContents(field);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    return field.textContent;
  }
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById("copy-status");
    if (!field) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      function done(text) {
        if (status) { status.textContent = text; } else { button.textContent = text; }
      }
      var text = select(field);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done("Copied."); },
          function () { done(document.execCommand("copy") ? "Copied." : "Press Ctrl+C to copy."); });
      } else {
        done(document.execCommand("copy") ? "Copied." : "Press Ctrl+C to copy.");
      }
    });
  });
})();
