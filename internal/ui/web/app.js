// latlab live view: reads the figures the server sends every second
// (server-sent events) and draws them with uPlot. It sends nothing but the
// record request, and nothing it does changes a setting.
(function () {
  "use strict";
  var token = new URLSearchParams(location.search).get("t") || "";
  var q = "?t=" + encodeURIComponent(token);
  function el(id) { return document.getElementById(id); }
  function dur(ns) {
    if (ns === null || ns === undefined || ns < 0) { return "-"; }
    if (ns >= 1e6) { return (ns / 1e6).toPrecision(3) + " ms"; }
    if (ns >= 1e3) { return (ns / 1e3).toPrecision(3) + " µs"; }
    return ns + " ns";
  }
  function us(ns) { return ns > 0 ? ns / 1000 : null; }
  function width(id) { return Math.max(280, el(id).clientWidth || 600); }
  var axisUs = { label: "µs", size: 60 };
  function seriesOpts(id, title) {
    return {
      title: title, width: width(id), height: 200,
      scales: { x: { time: true }, y: { distr: 3 } },
      series: [{}, { label: "p50", stroke: "#0072b2", width: 2, value: function (u, v) { return v === null ? "-" : v.toPrecision(3) + " µs"; } },
        { label: "p99", stroke: "#e69f00", width: 2, value: function (u, v) { return v === null ? "-" : v.toPrecision(3) + " µs"; } },
        { label: "max", stroke: "#d55e00", width: 2, value: function (u, v) { return v === null ? "-" : v.toPrecision(3) + " µs"; } }],
      axes: [{}, axisUs]
    };
  }
  var empty4 = [[], [], [], []];
  var wakePlot = new uPlot(seriesOpts("wake-series", "Wake-up lateness, rolling 10 s"), empty4, el("wake-series"));
  var sleepPlot = new uPlot(seriesOpts("sleep-series", "Sleep overshoot, rolling 10 s"), empty4, el("sleep-series"));
  var histPlot = new uPlot({
    title: "Wake-up lateness, this session", width: width("wake-hist"), height: 200,
    scales: { x: { time: false, distr: 3 }, y: { range: function (u, lo, hi) { return [0, Math.max(1, hi)]; } } },
    series: [{ label: "lateness (µs)" }, { label: "wake-ups", stroke: "#0072b2", fill: "rgba(0,114,178,0.3)", paths: uPlot.paths.stepped({ align: 1 }) }],
    axes: [{ label: "µs" }, { label: "count", size: 60 }]
  }, [[], []], el("wake-hist"));
  var ticks = 0;
  function show(prefix, st) {
    el(prefix + "-p50").textContent = dur(st.p50);
    el(prefix + "-p99").textContent = dur(st.p99);
    el(prefix + "-max").textContent = dur(st.max);
    el(prefix + "-n").textContent = String(st.n);
  }
  var es = new EventSource("/events" + q);
  es.onmessage = function (ev) {
    var s = JSON.parse(ev.data);
    ticks++;
    el("ticks").textContent = String(ticks);
    el("status").textContent = s.status;
    el("wake-total").textContent = String(s.total[0]);
    el("sleep-total").textContent = String(s.total[1]);
    var pts = s.series || [];
    if (pts.length > 0) {
      var last = pts[pts.length - 1];
      show("wake", last.wake);
      show("sleep", last.sleep);
      el("wake-missed").textContent = String(last.wake.missed || 0);
    }
    var t = [], w50 = [], w99 = [], wmax = [], s50 = [], s99 = [], smax = [];
    pts.forEach(function (p) {
      t.push(p.t);
      w50.push(us(p.wake.p50)); w99.push(us(p.wake.p99)); wmax.push(us(p.wake.max));
      s50.push(us(p.sleep.p50)); s99.push(us(p.sleep.p99)); smax.push(us(p.sleep.max));
    });
    wakePlot.setData([t, w50, w99, wmax]);
    sleepPlot.setData([t, s50, s99, smax]);
    var hx = [], hy = [];
    for (var i = 0; i < s.hist.length; i++) { hx.push(s.hist_edges_ns[i] / 1000); hy.push(s.hist[i]); }
    hx.push(s.hist_edges_ns[s.hist.length] / 1000); hy.push(0);
    histPlot.setData([hx, hy]);
    showDPC(s.dpc);
  };
  // The DPC and ISR panel: text only (textContent), never markup from the
  // server.
  function usText(v) { return v >= 1000 ? (v / 1000).toPrecision(3) + " ms" : v.toPrecision(3) + " µs"; }
  function showDPC(d) {
    if (!d) { return; }
    el("dpc-status").textContent = d.status;
    el("dpc-seconds").textContent = d.seconds ? d.seconds.toFixed(0) : "0";
    if (d.sections && d.sections[0]) {
      el("dpc-title").textContent = d.sections[0] + " and " + d.sections[1] + " time";
      el("dpc-who").textContent = d.sections[0] === "DPC" ? "driver" : "handler";
    }
    el("dpc-verdict").textContent = d.watching ? (d.verdict.text || "-") : "-";
    var body = el("dpc-rows");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    (d.rows || []).forEach(function (r) {
      var tr = document.createElement("tr");
      [r.section, r.module, String(r.count), usText(r.total_us), usText(r.max_us)].forEach(function (v, i) {
        var td = document.createElement("td");
        if (i < 2) { td.className = "k"; }
        td.textContent = v;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }
  // EventSource reconnects by itself; say so only when it has not within
  // two seconds, so a brief reconnect does not flash a warning.
  es.onerror = function () {
    setTimeout(function () {
      if (es.readyState !== EventSource.OPEN) { el("status").textContent = "connection lost: reconnecting (latlab ui may have stopped)"; }
    }, 2000);
  };
  el("record").addEventListener("click", function () {
    el("recorded").textContent = "recording...";
    fetch("/record" + q, { method: "POST" }).then(function (r) { return r.json(); }).then(function (a) {
      el("recorded").textContent = a.error ? "not recorded: " + a.error : "wrote " + a.files.join(", ");
    }, function (e) { el("recorded").textContent = "not recorded: " + e; });
  });
  window.addEventListener("resize", function () {
    wakePlot.setSize({ width: width("wake-series"), height: 200 });
    histPlot.setSize({ width: width("wake-hist"), height: 200 });
    sleepPlot.setSize({ width: width("sleep-series"), height: 200 });
  });
}());
