// Drag-and-drop onto the upload form's file field (the plain file input works without this).
(function () {
  "use strict";
  // The header follows the chosen leaderboard: every board's is in the page (split, file
  // formats, inputs), the one in the select shown.
  var select = document.getElementById("leaderboard");
  var about = document.querySelectorAll("#board-about [data-board]");
  if (select && about.length) {
    var showBoard = function () {
      Array.prototype.forEach.call(about, function (el) {
        el.hidden = el.getAttribute("data-board") !== select.value;
      });
    };
    select.addEventListener("change", showBoard);
    showBoard();  // a browser may restore another choice on going back
  }
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
      nameField.value = input.files[0].name
        .replace(/(\.(json|best|oot|ranked|tsv|txt))?(\.gz)?$/i, "");
    }
  });
  // "Check file (free)" in the background: a full form post would reload the page, and a
  // browser never refills a file input, so the chosen file would be lost.
  var check = document.querySelector("button[data-check]");
  var form = input.form;
  var target = document.getElementById("check-result");
  if (check && form && target && window.fetch && window.DOMParser) {
    check.addEventListener("click", function (event) {
      if (!input.files.length) { return; }  // let the server say that a file is needed
      event.preventDefault();
      check.disabled = true;
      var body = new FormData(form);
      // A worker checks the file; while it works the answer says so and names the URL
      // that gives the report once ready, asked again every 2 s.
      var show = function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("check-result");
        var error = doc.querySelector("main .flash-error");
        // The quota may have changed since the form was loaded (an upload from another
        // tab, the API or another board chosen): show the one the answer counted.
        var quota = document.querySelector("section.quota");
        var freshQuota = doc.querySelector("section.quota");
        if (quota && freshQuota) { quota.replaceWith(document.importNode(freshQuota, true)); }
        target.innerHTML = "";
        if (error) { target.appendChild(document.importNode(error, true)); }
        if (fresh) {
          Array.prototype.forEach.call(fresh.childNodes, function (node) {
            target.appendChild(document.importNode(node, true));
          });
        }
        target.scrollIntoView({ block: "nearest" });
        var pending = fresh && fresh.querySelector("[data-poll]");
        return pending ? pending.getAttribute("data-poll") : null;
      };
      var poll = function (url) {
        return new Promise(function (resolve) { setTimeout(resolve, 2000); })
          .then(function () { return fetch(url, { credentials: "same-origin" }); })
          .then(function (response) { return response.text(); })
          .then(function (html) { var next = show(html); return next ? poll(next) : null; });
      };
      fetch(check.getAttribute("formaction"), { method: "POST", body: body, credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) { var next = show(html); return next ? poll(next) : null; })
        .catch(function () {
          target.textContent = "The check could not reach the server; try again.";
        })
        .then(function () { check.disabled = false; });
    });
  }
})();
