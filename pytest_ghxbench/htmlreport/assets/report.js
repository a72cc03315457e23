// The report's only script: item filters (mode, scenario, outcome) for the item table and the
// transcripts, the count of shown items, and opening an item's transcript from its link.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var selects = Array.prototype.slice.call(document.querySelectorAll("#filters select[data-key]"));
  var rows = document.querySelectorAll("#items tbody tr[data-mode]");
  var groups = document.querySelectorAll("#transcripts details.item");
  var count = document.getElementById("visible-count");

  function matches(element) {
    for (var i = 0; i < selects.length; i++) {
      var value = selects[i].value;
      if (value && element.getAttribute("data-" + selects[i].getAttribute("data-key")) !== value) {
        return false;
      }
    }
    return true;
  }

  function apply() {
    var visible = 0;
    for (var i = 0; i < rows.length; i++) {
      var shown = matches(rows[i]);
      rows[i].hidden = !shown;
      if (shown) {
        visible++;
      }
    }
    for (var j = 0; j < groups.length; j++) {
      groups[j].hidden = !matches(groups[j]);
    }
    if (count) {
      count.textContent = String(visible);
    }
  }

  function openFromHash() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === "DETAILS") {
      target.hidden = false;
      target.open = true;
    }
  }

  function setOpen(open) {
    for (var i = 0; i < groups.length; i++) {
      if (!groups[i].hidden || !open) {
        groups[i].open = open;
      }
    }
  }

  selects.forEach(function (select) {
    select.addEventListener("change", apply);
  });
  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
    });
  }
  var reset = document.getElementById("filter-reset");
  if (reset) {
    reset.addEventListener("click", function () {
      selects.forEach(function (select) {
        select.value = "";
      });
      apply();
    });
  }
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.open-transcript") : null;
    if (link) {
      var target = document.getElementById(link.getAttribute("href").slice(1));
      if (target) {
        target.hidden = false;
        target.open = true;
      }
    }
  });
  var expand = document.getElementById("expand-visible");
  var collapse = document.getElementById("collapse-all");
  if (expand) {
    expand.addEventListener("click", function () {
      setOpen(true);
    });
  }
  if (collapse) {
    collapse.addEventListener("click", function () {
      setOpen(false);
    });
  }
  window.addEventListener("hashchange", openFromHash);
  apply();
  openFromHash();
})();
