/* Copy buttons (data-copy="<input id>") and select-on-focus for read-only token fields. Our
   CSP forbids inline handlers (onfocus=...), so this lives in its own file. */
(function () {
  "use strict";
  Array.prototype.forEach.call(document.querySelectorAll("input.token-value"), function (field) {
    field.addEventListener("focus", function () { field.select(); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    var status = document.getElementById("copy-status");
    if (!field) { return; }
    button.addEventListener("click", function () {
      function done(text) { if (status) { status.textContent = text; } }
      field.select();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(function () { done("Copied."); },
          function () { done(document.execCommand("copy") ? "Copied." : "Press Ctrl+C to copy."); });
      } else {
        done(document.execCommand("copy") ? "Copied." : "Press Ctrl+C to copy.");
      }
    });
  });
})();
