// Drag-and-drop onto the upload form's file field (the plain file input works without this).
(function () {
  "use strict";
  var zone = document.querySelector("[data-drop-zone]");
  if (!zone) { return; }
  var input = zone.querySelector("input[type=file]");
  if (!input) { return; }
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (event) {
      event.preventDefault();
      zone.classList.add("drag-over");
    });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function () { zone.classList.remove("drag-over"); });
  });
  zone.addEventListener("drop", function (event) {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files.length) {
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });
  input.addEventListener("change", function () {
    var nameField = document.getElementById("name");
    if (nameField && !nameField.value && input.files.length) {
      nameField.value = input.files[0].name.replace(/\.json(\.gz)?$/i, "");
    }
  });
})();
