// pytest-tom HTML report: the item browser. Plain JavaScript over the embedded JSON;
// one page of rows in the DOM at a time; every text is set with textContent (never HTML).
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("tom-data").textContent);
  var PAGE = 50;
  var items = DATA.items, strings = DATA.strings, runs = DATA.runs, suites = DATA.suites;
  var state = { suite: "", family: "", kind: "", tag: "", run: 0, outcome: "", q: "", page: 0 };
  var shown = items.map(function (_, i) { return i; }), selected = null;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fill(select, values, labels) {
    values.forEach(function (v, i) {
      var o = el("option", null, labels ? labels[i] : v);
      o.value = String(v);
      select.appendChild(o);
    });
  }

  function uniq(f) {
    var seen = {};
    items.forEach(function (it) { [].concat(f(it)).forEach(function (v) { if (v !== "") seen[v] = 1; }); });
    return Object.keys(seen).sort();
  }

  fill($("f-suite"), suites.map(function (_, i) { return i; }), suites);
  fill($("f-family"), uniq(function (it) { return it.f; }));
  fill($("f-kind"), uniq(function (it) { return it.k; }));
  fill($("f-tag"), uniq(function (it) { return it.t; }));
  fill($("f-run"), runs.map(function (_, i) { return i; }), runs);

  var hay = new Array(items.length);
  function haystack(i) {
    if (hay[i] === undefined) {
      var it = items[i], parts = [suites[it.s], it.id, it.q, it.g, it.k, it.t.join(" "), it.c.join(" ")];
      it.o.forEach(function (o) { if (o) { parts.push(o.p, o.d, o.r.join(" ")); } });
      hay[i] = parts.join("\n").toLowerCase();
    }
    return hay[i];
  }

  function outcomeOk(it) {
    var o = it.o[state.run];
    if (!state.outcome) return true;
    if (state.outcome === "flipped") {
      var a = it.o[0], b = it.o[state.run === 0 ? 1 : state.run];
      if (!a || !b) return false;
      var ja = a.v === "right", jb = b.v === "right";
      var judged = function (v) { return v !== "skipped" && v !== "measured"; };
      return judged(a.v) && judged(b.v) && ja !== jb;
    }
    if (!o) return false;
    if (state.outcome === "not-right") return o.v === "wrong" || o.v === "unparseable" || o.v === "cut_off" || o.v === "error";
    return o.v === state.outcome;
  }

  function apply() {
    var q = state.q.trim().toLowerCase(), suite = state.suite === "" ? -1 : Number(state.suite);
    var out = [];
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      if (suite >= 0 && it.s !== suite) continue;
      if (state.family && it.f !== state.family) continue;
      if (state.kind && it.k !== state.kind) continue;
      if (state.tag && it.t.indexOf(state.tag) < 0) continue;
      if (!outcomeOk(it)) continue;
      if (q && haystack(i).indexOf(q) < 0) continue;
      out.push(i);
    }
    shown = out;
    state.page = 0;
    render();
  }

  function verdictCell(o) {
    var td = el("td");
    if (!o) { td.appendChild(el("span", "muted", "—")); return td; }
    td.appendChild(el("span", "v v-" + o.v, o.v));
    if (o.p) td.appendChild(document.createTextNode(" " + o.p));
    td.title = o.p || o.d || o.e || "";
    return td;
  }

  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var start = state.page * PAGE, tbody = $("rows");
    var frag = document.createDocumentFragment();
    shown.slice(start, start + PAGE).forEach(function (i) {
      var it = items[i], tr = el("tr");
      tr.dataset.index = String(i);
      if (selected === i) tr.className = "selected";
      [suites[it.s], it.id, it.k, it.q, it.g].forEach(function (t) {
        var td = el("td", null, t); td.title = t; tr.appendChild(td);
      });
      it.o.forEach(function (o) { tr.appendChild(verdictCell(o)); });
      frag.appendChild(tr);
    });
    tbody.replaceChildren(frag);
    $("count").textContent = shown.length + " of " + items.length + " items";
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
  }

  function pre(text) { return el("pre", null, text); }

  // a reasoning model's thought of call k: collapsed under its answer, never scored
  function thought(o, k, into) {
    if (!o.t || o.t[k] === undefined || o.t[k] === null) return;
    var d = el("details", "thought");
    d.appendChild(el("summary", null, "thought (" + o.t[k].length + " characters, not scored)"));
    d.appendChild(pre(o.t[k]));
    into.appendChild(d);
  }

  function transcript(it, o, runIndex) {
    var box = el("div");
    box.appendChild(el("h4", null, runs[runIndex]));
    if (!o) { box.appendChild(el("p", "muted", "not in this run")); return box; }
    var why = el("p");
    why.appendChild(el("span", "v v-" + o.v, o.v));
    var reason = [];
    if (o.p) reason.push("parsed: " + o.p);
    if (o.e) reason.push("error: " + o.e);
    if (o.d) reason.push(o.d);
    if (o.x !== undefined) reason.push("value: " + o.x);
    why.appendChild(document.createTextNode(" — " + (reason.join(" · ") || "no detail")));
    box.appendChild(why);
    if (o.xt) box.appendChild(el("p", "note", o.xt));
    if (o.m) {
      o.m.forEach(function (call, c) {
        box.appendChild(el("p", "note", "call " + (c + 1) + " of " + o.m.length));
        call.forEach(function (m) {
          var d = el("div", "msg " + m[0]);
          d.appendChild(el("div", "role", m[0]));
          d.appendChild(pre(m[1].map(function (k) { return strings[k]; }).join("\n")));
          box.appendChild(d);
        });
        if (o.r[c] !== undefined) {
          var a = el("div", "msg assistant");
          a.appendChild(el("div", "role", "assistant (the model's answer)"));
          a.appendChild(pre(o.r[c]));
          thought(o, c, a);
          box.appendChild(a);
        }
      });
    } else {
      box.appendChild(el("p", "note", "This report does not keep the messages; the question as asked:"));
      var u = el("div", "msg user");
      u.appendChild(el("div", "role", "question"));
      u.appendChild(pre(it.q + (it.c.length ? "\n" + it.c.join("\n") : "")));
      box.appendChild(u);
      o.r.forEach(function (r, k) {
        var a = el("div", "msg assistant");
        a.appendChild(el("div", "role", "assistant" + (o.r.length > 1 ? " (call " + (k + 1) + ")" : "")));
        a.appendChild(pre(r));
        thought(o, k, a);
        box.appendChild(a);
      });
    }
    return box;
  }

  function showDetail(i) {
    selected = i;
    var it = items[i], d = $("detail");
    d.replaceChildren();
    var close = el("button", "close", "close ×");
    close.type = "button";
    close.addEventListener("click", function () { d.hidden = true; selected = null; render(); });
    d.appendChild(close);
    d.appendChild(el("h3", null, suites[it.s] + " :: " + it.id));
    var meta = el("p", "note", "family " + it.f + " · kind " + it.k + (it.t.length ? " · tags " + it.t.join(", ") : "") + (it.src ? " · " + it.src : ""));
    d.appendChild(meta);
    var g = el("p");
    g.appendChild(el("b", null, "gold: "));
    g.appendChild(document.createTextNode(it.g));
    d.appendChild(g);
    if (it.c.length) d.appendChild(el("p", "note", "choices: " + it.c.join(" · ")));
    var cols = el("div", "runs-detail");
    it.o.forEach(function (o, r) { cols.appendChild(transcript(it, o, r)); });
    d.appendChild(cols);
    d.hidden = false;
    render();
  }

  function bind(id, key, delay) {
    var timer = null, node = $(id);
    node.addEventListener(delay ? "input" : "change", function () {
      state[key] = key === "run" ? Number(node.value) : node.value;
      if (!delay) { apply(); return; }
      clearTimeout(timer);
      timer = setTimeout(apply, delay);
    });
  }
  bind("f-suite", "suite"); bind("f-family", "family"); bind("f-kind", "kind"); bind("f-tag", "tag");
  bind("f-run", "run"); bind("f-outcome", "outcome"); bind("f-search", "q", 120);
  $("prev").addEventListener("click", function () { state.page--; render(); });
  $("next").addEventListener("click", function () { state.page++; render(); });
  $("rows").addEventListener("click", function (ev) {
    var tr = ev.target.closest("tr");
    if (tr && tr.dataset.index) showDetail(Number(tr.dataset.index));
  });
  Array.prototype.forEach.call(document.querySelectorAll("a.show-flips"), function (a) {
    a.addEventListener("click", function () {
      state.run = Number(a.dataset.run); $("f-run").value = String(state.run);
      state.outcome = "flipped"; $("f-outcome").value = "flipped";
      apply();
    });
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !$("detail").hidden) { $("detail").hidden = true; selected = null; render(); }
  });
  render();
  document.body.dataset.ready = "1";
})();
