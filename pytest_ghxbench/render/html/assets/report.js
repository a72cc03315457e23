// The report's only script: item filters (mode, scenario, outcome) with the count of shown
// items, and the transcript panel. An item's link names its records in the run directory
// (transcripts/<file>.jsonl?item=<id>); the panel fetches them from the server that serves the
// run directory (`ghxbench view` answers with the item's records only, a plain file server with
// the whole file, filtered here) and shows every attempt. All text is set as text, never markup.
(function () {
  "use strict";
  var TEXT_LIMIT = 20000;
  var TOOL_LIMIT = 4000;
  var HASH = "#transcript=";
  var form = document.getElementById("filters");
  var selects = Array.prototype.slice.call(document.querySelectorAll("#filters select[data-key]"));
  var rows = document.querySelectorAll("#items tbody tr[data-mode]");
  var count = document.getElementById("visible-count");
  var panel = document.getElementById("transcript");
  var panelItem = document.getElementById("transcript-item");
  var panelBody = document.getElementById("transcript-body");
  var panelRaw = document.getElementById("transcript-raw");
  var shown = null; // the item id the panel shows

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
      var match = matches(rows[i]);
      rows[i].hidden = !match;
      if (match) {
        visible++;
      }
    }
    if (count) {
      count.textContent = String(visible);
    }
  }

  // --- building the panel's content (text only) ---

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      if (arguments[i]) {
        parent.appendChild(arguments[i]);
      }
    }
    return parent;
  }

  // Appends `node` to `parent` and returns the node.
  function put(parent, node) {
    parent.appendChild(node);
    return node;
  }

  function asText(value) {
    if (value === null || value === undefined) {
      return "";
    }
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }

  // A <pre> of the first `limit` characters, with a button that shows the rest.
  function clipped(value, limit) {
    var text = asText(value);
    var box = el("div", "clipped");
    var pre = put(box, el("pre", "", text.length > limit ? text.slice(0, limit) : text));
    if (text.length > limit) {
      var more = el("button", "show-all", "show all " + text.length.toLocaleString("en-US") +
        " characters");
      more.type = "button";
      more.addEventListener("click", function () {
        pre.textContent = text;
        box.removeChild(more);
      });
      box.appendChild(more);
    }
    return box;
  }

  function details(label, build, open) {
    var node = el("details", "text");
    add(node, el("summary", "", label));
    node.open = !!open;
    var filled = false;
    function fill() {
      if (!filled && node.open) {
        filled = true;
        add(node, build());
      }
    }
    node.addEventListener("toggle", fill); // long texts are laid out when first opened
    fill();
    return node;
  }

  function number(value, digits) {
    if (typeof value !== "number" || !isFinite(value)) {
      return "—";
    }
    return value.toLocaleString("en-US", { maximumFractionDigits: digits || 0 });
  }

  function seconds(ms) {
    if (typeof ms !== "number" || !isFinite(ms)) {
      return "—";
    }
    return ms < 1000 ? number(ms) + " ms" : number(ms / 1000, 2) + " s";
  }

  // the item's judgement ("verdict" in transcripts written before it was renamed)
  function judgementOf(record) {
    var judgement = record.judgement !== undefined ? record.judgement : record.verdict;
    return judgement && typeof judgement === "object" ? judgement : null;
  }

  function judgementText(record) {
    if (record.runner_error !== null && record.runner_error !== undefined) {
      return "runner error";
    }
    var judgement = judgementOf(record);
    if (!judgement) {
      return "not judged";
    }
    return (judgement.success === true ? "success" : "no success") + ", " +
      (judgement.output_valid === true ? "valid output" : "invalid output");
  }

  function usage(row) {
    if (!row || typeof row !== "object") {
      return null;
    }
    var list = el("dl", "usage");
    function pair(label, value) {
      add(list, add(el("div"), el("dt", "", label), el("dd", "", value)));
    }
    var tokens = row.tokens && typeof row.tokens === "object" ? row.tokens : null;
    if (tokens) {
      ["input", "output", "reasoning", "cache_read", "cache_write", "total"].forEach(function (k) {
        if (k in tokens) {
          pair("tokens " + k.replace("_", " "), number(tokens[k]));
        }
      });
      if (typeof tokens.total === "number") {
        pair("tokens active", number(tokens.total - (tokens.cache_read || 0)));
      }
    }
    pair("cost", typeof row.cost === "number" ? "$" + row.cost.toFixed(4) : "—");
    pair("latency", seconds(row.latency_ms_wall));
    pair("tool calls", number(row.tool_calls));
    pair("api calls", number(row.api_calls));
    return list;
  }

  function checkpoints(list) {
    var table = el("table", "small");
    add(table, add(el("thead"), add(el("tr"), el("th", "", "checkpoint"), el("th", "", "passed"),
      el("th", "", "detail"))));
    var body = put(table, el("tbody"));
    list.forEach(function (checkpoint) {
      var item = checkpoint && typeof checkpoint === "object" ? checkpoint : { name: checkpoint };
      var passed = item.passed === true ? "yes" : item.passed === false ? "no" : "—";
      var css = item.passed === true ? "ok" : item.passed === false ? "bad" : "";
      add(body, add(el("tr"), el("td", "", asText(item.name)), el("td", css, passed),
        el("td", "", asText(item.detail))));
    });
    return table;
  }

  function toolCall(call) {
    var item = el("li");
    if (!call || typeof call !== "object") {
      return add(item, clipped(call, TOOL_LIMIT));
    }
    var ok = call.ok === true ? "ok" : call.ok === false ? "failed" : "—";
    var css = call.ok === true ? "ok" : call.ok === false ? "bad" : "muted";
    add(item, add(el("div"), el("code", "", asText(call.name) || "(unknown)"),
      document.createTextNode(" "), el("span", css, ok), document.createTextNode(" "),
      el("span", "muted", seconds(call.duration_ms))));
    if (call.arguments && Object.keys(call.arguments).length) {
      add(item, clipped(call.arguments, TOOL_LIMIT));
    }
    if (call.output !== null && call.output !== undefined) {
      var output = asText(call.output);
      add(item, details("output (" + output.length.toLocaleString("en-US") + " characters)",
        function () { return clipped(output, TOOL_LIMIT); }));
    }
    return item;
  }

  function attempt(record) {
    var section = el("section", "attempt");
    var heading = put(section, el("h4", "", "Attempt " + (record.attempt || "?") + ": " +
      judgementText(record)));
    if (record.failure_kind) {
      add(heading, document.createTextNode(" "), el("span", "tag", record.failure_kind));
    }
    if (record.runner_error !== null && record.runner_error !== undefined) {
      add(section, add(el("div", "error"), el("strong", "", "Runner error: "),
        el("span", "pre-wrap", asText(record.runner_error))));
    }
    var judgement = judgementOf(record) || {};
    if (Array.isArray(judgement.failures) && judgement.failures.length) {
      var failures = put(section, el("ul", "failures"));
      judgement.failures.forEach(function (failure) {
        add(failures, el("li", "", asText(failure)));
      });
    }
    if (Array.isArray(judgement.checkpoints) && judgement.checkpoints.length) {
      add(section, checkpoints(judgement.checkpoints));
    }
    add(section, usage(record.row));
    ["instructions", "prompt"].forEach(function (key) {
      if (record[key]) {
        add(section, details(key.charAt(0).toUpperCase() + key.slice(1), function () {
          return clipped(record[key], TEXT_LIMIT);
        }));
      }
    });
    var calls = Array.isArray(record.tool_calls) ? record.tool_calls : [];
    add(section, el("h5", "", "Tool calls (" + calls.length + ")"));
    if (calls.length) {
      var list = put(section, el("ol", "tool-calls"));
      calls.forEach(function (call) {
        add(list, toolCall(call));
      });
    } else {
      add(section, el("p", "muted", "No tool calls."));
    }
    add(section, el("h5", "", "Final answer"));
    add(section, record.final_text === null || record.final_text === undefined
      ? el("p", "muted", "No final answer.") : clipped(record.final_text, TEXT_LIMIT));
    if (record.traceback) {
      add(section, details("Traceback", function () {
        return clipped(record.traceback, TEXT_LIMIT);
      }, true));
    }
    (Array.isArray(record.thread_stacks) ? record.thread_stacks : []).forEach(function (stack) {
      var label = stack && stack.thread ? "Thread stacks: " + stack.thread : "Thread stacks";
      add(section, details(label, function () {
        return clipped(stack && stack.stack !== undefined ? stack.stack : stack, TEXT_LIMIT);
      }));
    });
    var raw = record.adapter_transcript;
    if (raw !== null && raw !== undefined && raw !== "") {
      add(section, details("The adapter's own transcript", function () {
        return clipped(raw, TEXT_LIMIT);
      }));
    }
    return section;
  }

  // --- the panel ---

  function message(text, css) {
    panelBody.textContent = "";
    add(panelBody, el("p", css || "muted", text));
  }

  function records(text, itemId) {
    var found = [];
    text.split("\n").forEach(function (line) {
      if (!line.trim()) {
        return;
      }
      try {
        var record = JSON.parse(line);
        if (record && record.item_id === itemId) {
          found.push(record);
        }
      } catch (error) {
        // a partial last line of a run that was killed: left out, as the report does
      }
    });
    return found.sort(function (a, b) {
      return (a.attempt || 0) - (b.attempt || 0);
    });
  }

  function openTranscript(itemId, href) {
    shown = itemId;
    panel.hidden = false;
    panelItem.textContent = itemId;
    panelRaw.href = href;
    if (window.location.hash !== HASH + encodeURIComponent(itemId)) {
      window.history.replaceState(null, "", HASH + encodeURIComponent(itemId));
    }
    if (window.location.protocol === "file:") {
      var run = panel.getAttribute("data-run");
      message("This page was opened as a file, so it cannot read the transcripts. Run " +
        "`ghxbench view" + (run ? " " + run : "") + "`: it serves the run directory on " +
        "loopback and opens this page from there. The records are in " + href.split("?")[0] +
        " (one JSON line per attempt).");
      return;
    }
    message("Loading the transcript…");
    fetch(href, { cache: "no-store" }).then(function (response) {
      if (!response.ok) {
        throw new Error("the server answered " + response.status + " " + response.statusText);
      }
      return response.text();
    }).then(function (text) {
      if (shown !== itemId) {
        return; // another item was opened meanwhile
      }
      var found = records(text, itemId);
      if (!found.length) {
        message("No transcript records for this item in " + href.split("?")[0] + ".");
        return;
      }
      panelBody.textContent = "";
      found.forEach(function (record) {
        add(panelBody, attempt(record));
      });
      panelBody.scrollTop = 0;
    }).catch(function (error) {
      if (shown === itemId) {
        message("Could not load the transcript: " + error.message + ". Is `ghxbench view` " +
          "still running?", "error");
      }
    });
  }

  function closeTranscript() {
    shown = null;
    panel.hidden = true;
    if (window.location.hash.indexOf(HASH) === 0) {
      window.history.replaceState(null, "", window.location.pathname + window.location.search);
    }
  }

  function rowOf(itemId) {
    for (var i = 0; i < rows.length; i++) {
      if (rows[i].getAttribute("data-item-id") === itemId) {
        return rows[i];
      }
    }
    return null;
  }

  function openFromHash() {
    var hash = window.location.hash;
    if (hash.indexOf(HASH) !== 0) {
      return;
    }
    var itemId = decodeURIComponent(hash.slice(HASH.length));
    var row = rowOf(itemId);
    var link = row ? row.querySelector("a.open-transcript") : null;
    if (link && itemId !== shown) {
      openTranscript(itemId, link.getAttribute("href"));
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
    var row = link ? link.closest("tr[data-item-id]") : null;
    if (row && panel && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      openTranscript(row.getAttribute("data-item-id"), link.getAttribute("href"));
    }
  });
  if (panel) {
    document.getElementById("transcript-close").addEventListener("click", closeTranscript);
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && !panel.hidden) {
        closeTranscript();
      }
    });
    window.addEventListener("hashchange", openFromHash);
  }
  apply();
  if (panel) {
    openFromHash();
  }
})();
