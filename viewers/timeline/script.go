package timeline

// script is the zoom/pan code of the page (vanilla JS, no libraries). The
// SVG is complete without it; the script only rewrites x/width of the bars
// from their data-s/data-e attributes (times relative to data-t0, exact in
// JS numbers) and redraws the axis for the visible range [v0, v1].
const script = `(function () {
  "use strict";
  var svg = document.getElementById("tl");
  if (!svg) return;
  var NS = "http://www.w3.org/2000/svg";
  var t0 = Number(svg.dataset.t0), dur = Number(svg.dataset.dur);
  var x0 = Number(svg.dataset.x0), pw = Number(svg.dataset.pw);
  var unit = svg.dataset.unit;
  var H = Number(svg.getAttribute("height"));
  var bars = svg.querySelectorAll("#bars rect");
  var axis = document.getElementById("axis");
  var sel = document.getElementById("sel");
  var label = document.getElementById("zrange");
  var s = new Float64Array(bars.length), e = new Float64Array(bars.length);
  for (var i = 0; i < bars.length; i++) {
    s[i] = Number(bars[i].getAttribute("data-s"));
    e[i] = Number(bars[i].getAttribute("data-e"));
  }
  var v0 = 0, v1 = dur;

  function px(v) { return x0 + (v - v0) / (v1 - v0) * pw; }
  function val(x) { return v0 + (x - x0) / pw * (v1 - v0); }
  function fmt(x) { return (Math.round(x * 100) / 100).toString(); }

  function ticks(lo, hi, want) {
    var span = hi - lo, out = [];
    if (span <= 0) return [lo];
    var raw = span / want, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = mag, ms = [1, 2, 5, 10];
    for (var k = 0; k < ms.length; k++) {
      if (ms[k] * mag >= raw) { step = ms[k] * mag; break; }
    }
    step = Math.max(step, 1);
    for (var v = Math.ceil(lo / step) * step; v <= hi && out.length < 50; v += step) out.push(v);
    return out;
  }

  function drawAxis() {
    while (axis.firstChild) axis.removeChild(axis.firstChild);
    var ts = ticks(t0 + v0, t0 + v1, 8);
    for (var k = 0; k < ts.length; k++) {
      var x = fmt(px(ts[k] - t0));
      var p = document.createElementNS(NS, "path");
      p.setAttribute("d", "M" + x + " 18V" + H);
      axis.appendChild(p);
      var t = document.createElementNS(NS, "text");
      t.setAttribute("x", x);
      t.setAttribute("y", "15");
      t.textContent = String(ts[k]);
      axis.appendChild(t);
    }
  }

  function draw() {
    for (var i = 0; i < bars.length; i++) {
      var a = px(s[i]), b = px(e[i]);
      if (b < x0 - 1 || a > x0 + pw + 1) {
        bars[i].setAttribute("width", "0");
        continue;
      }
      a = Math.max(a, x0 - 1);
      b = Math.min(b, x0 + pw + 1);
      bars[i].setAttribute("x", fmt(a));
      bars[i].setAttribute("width", fmt(Math.max(b - a, 0.5)));
    }
    drawAxis();
    if (label) label.textContent = "showing " + Math.round(t0 + v0) + "–" + Math.round(t0 + v1) + " " + unit;
  }

  function zoomTo(a, b) {
    if (b < a) { var t = a; a = b; b = t; }
    var minSpan = Math.min(dur, 10);
    if (b - a < minSpan) { var m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
    if (a < 0) { b -= a; a = 0; }
    if (b > dur) { a -= b - dur; b = dur; }
    v0 = Math.max(0, a); v1 = Math.min(dur, b);
    draw();
  }

  function zoomAround(v, f) { zoomTo(v - (v - v0) * f, v + (v1 - v) * f); }

  function mouseX(ev) {
    var r = svg.getBoundingClientRect();
    return (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
  }

  svg.addEventListener("wheel", function (ev) {
    var x = mouseX(ev);
    if (x < x0 || x > x0 + pw) return;
    ev.preventDefault();
    var d = ev.deltaY || ev.deltaX;
    if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
      var shift = (v1 - v0) * (d > 0 ? 0.1 : -0.1);
      zoomTo(v0 + shift, v1 + shift);
    } else {
      zoomAround(val(x), d > 0 ? 1.25 : 0.8);
    }
  }, { passive: false });

  var dragFrom = null;
  svg.addEventListener("mousedown", function (ev) {
    var x = mouseX(ev);
    if (x < x0 || x > x0 + pw) return;
    dragFrom = x;
    sel.setAttribute("x", fmt(x));
    sel.setAttribute("width", "0");
  });
  window.addEventListener("mousemove", function (ev) {
    if (dragFrom === null) return;
    var x = Math.min(Math.max(mouseX(ev), x0), x0 + pw);
    sel.setAttribute("x", fmt(Math.min(x, dragFrom)));
    sel.setAttribute("width", fmt(Math.abs(x - dragFrom)));
  });
  window.addEventListener("mouseup", function (ev) {
    if (dragFrom === null) return;
    var x = Math.min(Math.max(mouseX(ev), x0), x0 + pw);
    var from = dragFrom;
    dragFrom = null;
    sel.setAttribute("width", "0");
    if (Math.abs(x - from) > 3) zoomTo(val(Math.min(x, from)), val(Math.max(x, from)));
  });

  function mid() { return (v0 + v1) / 2; }
  document.getElementById("zin").addEventListener("click", function () { zoomAround(mid(), 0.5); });
  document.getElementById("zout").addEventListener("click", function () { zoomAround(mid(), 2); });
  document.getElementById("zreset").addEventListener("click", function () { zoomTo(0, dur); });
  draw();
})();
`
