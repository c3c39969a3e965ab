"use strict";
// ptxtrace viewer front end. Everything is fetched from this server's /api;
// the page loads nothing from elsewhere.
const ROWH = 18;
const COLORS = {global: "#1e88e5", shared: "#43a047", local: "#fb8c00", const: "#8e24aa", param: "#6d4c41", tex: "#00acc1", memory: "#1e88e5", user: "#b0b0b0"};
const colorOf = c => COLORS[c] || "#757575";
const STATE = {active: "#43a047", idle: "#ffd54f", gated: "#546e7a"};
const MODES = {naive: "#e53935", fence: "#fdd835", dummy: "#3949ab"};
const byMode = () => $("colorBy").value === "mode";
function legendHTML() {
  const cs = byMode() ? Object.assign({}, MODES, {user: COLORS.user}) : Object.fromEntries(Object.entries(COLORS).filter(([k]) => k !== "memory"));
  return `<b class="kinds">${byMode() ? "probe mode:" : "state space:"}${Object.keys(cs).map(k => `<span style="background:${cs[k]}"></span>${k}`).join("")}</b> · aggregated buckets: height = busy share, colour = memory share`;
}
const $ = id => document.getElementById(id);
const api = (path, q) => fetch("api/" + path + "?" + new URLSearchParams(q)).then(r => r.ok ? r.json() : r.text().then(t => { throw new Error(t); }));
let runs = [], panels = [], focused = null;

function fmtT(run, t) {
  let s = Math.round(t) + " " + (run.timer === "globaltimer" ? "ns" : "cyc");
  if (run.clock_hz > 0 && run.timer !== "globaltimer") s += " · " + (t * 1e9 / run.clock_hz).toFixed(0) + " ns";
  return s;
}

class Panel {
  constructor(run, host) {
    this.run = run; this.v0 = run.x0; this.v1 = run.x1; this.sel = null; this.seq = 0; this.tracks = [];
    this.el = document.createElement("div"); this.el.className = "panel"; this.el.dataset.run = run.id;
    this.el.innerHTML = `<h4>${esc(run.name)} · kernel ${esc(run.kernel)} · ${run.warps} warps · ${run.regions} regions · timer ${esc(run.timer)}</h4>
<div class="ruler"><div class="pad"></div><canvas></canvas></div>
<div class="tracks"><div class="tracklabels"></div><div class="ttrack"><canvas></canvas></div></div><div class="tracknote"></div>
<div class="body"><div class="rowlabels"></div><div class="track"><canvas></canvas></div></div><div class="legend"></div>`;
    host.appendChild(this.el);
    this.rulerC = this.el.querySelector(".ruler canvas"); this.labels = this.el.querySelector(".rowlabels");
    this.canvas = this.el.querySelector(".track canvas"); this.body = this.el.querySelector(".body");
    this.tcanvas = this.el.querySelector(".ttrack canvas"); this.tlabels = this.el.querySelector(".tracklabels");
    this.el.querySelector(".legend").innerHTML = legendHTML();
    this.expanded = new Set([0]);
    this.ready = api("tree", {run: run.id}).then(nodes => {
      this.nodes = nodes; this.kids = nodes.map(() => []); this.warpNode = {};
      for (const n of nodes) { if (n.parent >= 0) this.kids[n.parent].push(n.id); if (n.level === "warp") this.warpNode[n.lo] = n.id; }
      this.layout();
    }).then(() => api("tracks", {run: run.id})).then(tr => { this.setTracks(tr); });
    this.bind();
  }
  visible() {
    const out = [], walk = (id, depth) => { out.push([id, depth]); if (this.expanded.has(id)) for (const k of this.kids[id]) walk(k, depth + 1); };
    if (this.nodes.length) walk(0, 0);
    return out;
  }
  layout() {
    this.rows = this.visible();
    this.labels.innerHTML = "";
    for (const [id, depth] of this.rows) {
      const n = this.nodes[id], d = document.createElement("div");
      d.dataset.node = id; d.className = "row " + n.level;
      d.style.paddingLeft = (4 + depth * 12) + "px";
      const leaf = n.level === "warp" || n.level === "act";
      const tog = leaf ? "<span class=tog></span>" : `<span class=tog>${this.expanded.has(id) ? "▾" : "▸"}</span>`;
      d.innerHTML = tog + esc(n.label) + (!leaf ? ` <small>(${n.hi - n.lo})</small>` : "");
      if (n.level === "act") d.classList.add(n.track);
      if (!leaf) d.querySelector(".tog").onclick = () => { this.toggle(id); };
      this.labels.appendChild(d);
    }
    this.canvas.style.height = (this.rows.length * ROWH) + "px";
    this.refresh();
  }
  toggle(id) { if (this.expanded.has(id)) this.expanded.delete(id); else this.expanded.add(id); this.layout(); }
  refresh() {
    const W = Math.max(50, this.canvas.clientWidth), dpr = window.devicePixelRatio || 1;
    this.canvas.dataset.drawn = "";
    const top = Math.floor(this.body.scrollTop / ROWH), n = Math.ceil(this.body.clientHeight / ROWH) + 1;
    const vis = this.rows.slice(top, top + n);
    const v0 = Math.floor(this.v0), v1 = Math.max(Math.ceil(this.v1), v0 + 1), seq = ++this.seq;
    const t = performance.now();
    api("tiles", {run: this.run.id, t0: v0, t1: v1, px: Math.min(8192, Math.round(W)), bet: betValue(), rows: vis.map(r => r[0]).join(",")}).then(tiles => {
      if (seq !== this.seq) return;
      this.lastQueryMs = performance.now() - t;
      this.draw(tiles, top, W, dpr, v0, v1);
    }).catch(e => { this.canvas.dataset.error = e.message; console.error(e); });
    this.drawRuler(); this.drawTracks();
  }
  // setTracks builds the rows above the warp tree from /api/tracks.
  setTracks(tr) {
    this.tracks = [];
    if (tr.activity_note) this.el.querySelector(".tracknote").textContent = tr.activity_note;
    if (tr.activity) this.el.querySelector(".legend").insertAdjacentHTML("beforeend", ` · SM power state: ${Object.keys(STATE).map(k => `<span style="background:${STATE[k]}"></span>${k}`).join(" ")} · units busy: <span style="background:#fb8c00"></span>units <span style="background:#bf360c"></span>lanes · <span style="background:#43a047"></span>issue slots used · <span style="background:#8e24aa"></span>stalled scheduler-cycles`);
    if (tr.transfer_note) this.el.querySelector(".tracknote").textContent = tr.transfer_note;
    else if (tr.transfers.length) this.tracks.push({kind: "transfer", label: "copy engine", items: tr.transfers});
    if (this.tracks.some(t => t.kind === "transfer")) this.el.querySelector(".legend").insertAdjacentHTML("beforeend", ` · copy engine: <span style="background:#00897b"></span>h2d <span style="background:#5e35b1"></span>d2h`);
    this.tlabels.innerHTML = this.tracks.map(t => `<div class="row trackrow ${t.kind}">${esc(t.label)}</div>`).join("");
    this.tcanvas.style.height = (this.tracks.length * ROWH) + "px";
    this.drawTracks();
  }
  drawTracks() {
    const c = this.tcanvas; if (!c || !this.tracks.length) return;
    const W = Math.max(50, c.clientWidth), dpr = window.devicePixelRatio || 1, H = this.tracks.length * ROWH;
    c.width = W * dpr; c.height = H * dpr;
    const g = c.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, W, H);
    this.trackHits = [];
    this.tracks.forEach((tk, k) => {
      const y = k * ROWH; g.fillStyle = "#eef3f7"; g.fillRect(0, y, W, ROWH - 1);
      if (tk.kind === "transfer") for (const t of tk.items) {
        const x0 = Math.max(-1, this.x(t.start, W)), x1 = Math.min(W + 1, Math.max(x0 + 1, this.x(t.end, W)));
        if (x1 < 0 || x0 > W) continue;
        g.fillStyle = t.dir === "h2d" ? "#00897b" : "#5e35b1"; g.fillRect(x0, y + 2, x1 - x0, ROWH - 5);
        if (x1 - x0 > 40) { g.save(); g.beginPath(); g.rect(x0, y, x1 - x0, ROWH); g.clip(); g.fillStyle = "#fff"; g.font = "11px system-ui"; g.fillText(t.name, x0 + 3, y + 13); g.restore(); }
        this.trackHits.push({x0, x1, y, transfer: t});
      }
    });
    c.dataset.drawn = String(this.trackHits.length);
  }
  trackClick(x, y) {
    const h = (this.trackHits || []).find(h => y >= h.y && y < h.y + ROWH && x >= h.x0 - 2 && x <= h.x1 + 2);
    if (h && h.transfer) showTransfer(this.run, h.transfer);
  }
  x(t, W) { return (t - this.v0) / (this.v1 - this.v0) * W; }
  draw(tiles, top, W, dpr, v0, v1) {
    this.canvas.width = W * dpr; this.canvas.height = this.rows.length * ROWH * dpr;
    const g = this.canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, W, this.rows.length * ROWH);
    this.hitList = [];
    tiles.forEach((tile, k) => {
      const y = (top + k) * ROWH, n = this.nodes[tile.node], warps = n.hi - n.lo;
      g.fillStyle = k % 2 ? "#fcfcfc" : "#f4f6f8"; g.fillRect(0, y, W, ROWH - 1);
      const cols = tile.n || [];
      for (let j = 0; j < cols.length; j++) {
        const b = {t0: tile.t0[j], t1: tile.t1[j], n: tile.n[j], busy: tile.busy[j], mem: tile.mem[j]};
        const x0 = this.x(b.t0, W), x1 = Math.max(x0 + 1, this.x(b.t1, W));
        const share = Math.min(1, b.busy / ((b.t1 - b.t0) * warps)), h = Math.max(3, share * (ROWH - 3));
        const m = b.mem / b.n;
        g.fillStyle = `rgb(${Math.round(176 - 146 * m)},${Math.round(176 - 40 * m)},${Math.round(176 + 53 * m)})`;
        g.fillRect(x0, y + ROWH - 1 - h, x1 - x0, h);
        this.hitList.push({x0, x1, y, bucket: b});
      }
      if (tile.mode === "activity") for (let j = 0; j < tile.t0.length; j++) {
        const b = {t0: tile.t0[j], t1: tile.t1[j], busy: tile.busy[j], cap: tile.cap[j], lanes: tile.lanes[j], lanecap: tile.lanecap[j]};
        if (!b.cap) continue;
        const x0 = this.x(b.t0, W), x1 = Math.max(x0 + 1, this.x(b.t1, W)), share = b.busy / b.cap;
        const h = share * (ROWH - 3);
        g.fillStyle = n.track === "power" ? STATE.active : n.track === "issue" ? "#43a047" : n.track === "stall" ? "#8e24aa" : "#fb8c00"; g.fillRect(x0, y + ROWH - 1 - h, x1 - x0, h);
        if (b.lanecap && b.lanes > 0) { const hl = b.lanes / b.lanecap * (ROWH - 3); g.fillStyle = "#bf360c"; g.fillRect(x0, y + ROWH - 2 - hl, x1 - x0, 2); }
        this.hitList.push({x0, x1, y, act: b, node: n});
      }
      for (const st of tile.states || []) {
        const s = {s: st[0], e: st[1], state: st[2]};
        const x0 = Math.max(-1, this.x(s.s, W)), x1 = Math.min(W + 1, Math.max(x0 + 1, this.x(s.e, W)));
        g.fillStyle = STATE[s.state]; g.fillRect(x0, y + 3, x1 - x0, ROWH - 7);
        this.hitList.push({x0, x1, y, state: s, node: n});
      }
      for (const a of tile.spans || []) {
        const s = {row: a[0], i: a[1], s: a[2], e: a[3], c: a[4], m: a[5]};
        const x0 = Math.max(-1, this.x(s.s, W)), x1 = Math.min(W + 1, Math.max(x0 + 1, this.x(s.e, W)));
        const user = s.c === "user";
        g.fillStyle = byMode() && s.m ? (MODES[s.m] || "#757575") : colorOf(s.c); g.fillRect(x0, user ? y + 1 : y + 4, x1 - x0, user ? 3 : ROWH - 6);
        if (this.sel && this.sel.row === s.row && this.sel.i === s.i) { g.strokeStyle = "#d50000"; g.lineWidth = 2; g.strokeRect(x0, y + 2, x1 - x0, ROWH - 4); }
        this.hitList.push({x0, x1, y, span: s});
      }
    });
    this.canvas.dataset.drawn = String(this.hitList.length);
    this.canvas.dataset.view = v0 + "," + v1;
  }
  drawRuler() {
    const c = this.rulerC, W = Math.max(50, c.clientWidth), dpr = window.devicePixelRatio || 1;
    c.width = W * dpr; c.height = 34 * dpr;
    const g = c.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, W, 34);
    // Tick spacing: a 1-2-5 step with at least 170 px per label.
    const span = this.v1 - this.v0, minStep = span * 170 / W, p10 = Math.pow(10, Math.floor(Math.log10(minStep)));
    const st = [1, 2, 5, 10].map(m => m * p10).find(v => v >= minStep);
    g.fillStyle = "#333"; g.font = "11px system-ui"; g.strokeStyle = "#999";
    for (let t = Math.ceil(this.v0 / st) * st; t <= this.v1; t += st) {
      const x = this.x(t, W); g.beginPath(); g.moveTo(x, 22); g.lineTo(x, 34); g.stroke();
      g.fillText(fmtT(this.run, t - this.run.origin), x + 2, 16);
    }
  }
  zoom(f, at) { const W = this.canvas.clientWidth, t = this.v0 + (at === undefined ? 0.5 : at / W) * (this.v1 - this.v0);
    let w = Math.max(10, (this.v1 - this.v0) * f); w = Math.min(w, (this.run.x1 - this.run.x0) * 4);
    const a = at === undefined ? 0.5 : at / W; this.v0 = t - a * w; this.v1 = this.v0 + w; this.refresh(); }
  // fit shows the kernel's regions (F), or the whole launch with its
  // transfers when the view already shows the kernel.
  fit() { const r = this.run, k = this.v0 === r.t0 && this.v1 === r.t1; this.v0 = k ? r.x0 : r.t0; this.v1 = k ? r.x1 : r.t1; this.refresh(); }
  pan(f) { const d = (this.v1 - this.v0) * f; this.v0 += d; this.v1 += d; this.refresh(); }
  bind() {
    for (const c of [this.canvas, this.tcanvas]) c.addEventListener("wheel", e => { e.preventDefault(); focused = this; this.zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX); }, {passive: false});
    this.tcanvas.addEventListener("click", e => { focused = this; this.trackClick(e.offsetX, e.offsetY); });
    let drag = null;
    this.canvas.addEventListener("mousedown", e => { drag = {x: e.clientX, v0: this.v0, v1: this.v1, moved: false}; focused = this; });
    window.addEventListener("mousemove", e => { if (!drag) return; const dx = e.clientX - drag.x; if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved) { const dt = dx / this.canvas.clientWidth * (drag.v1 - drag.v0); this.v0 = drag.v0 - dt; this.v1 = drag.v1 - dt; this.refresh(); } });
    window.addEventListener("mouseup", e => { if (drag && !drag.moved && e.target === this.canvas) this.click(e.offsetX, e.offsetY); drag = null; });
    this.body.addEventListener("scroll", () => this.refresh());
  }
  click(x, y) {
    const h = (this.hitList || []).filter(h => y >= h.y && y < h.y + ROWH && x >= h.x0 - 2 && x <= h.x1 + 2);
    const sp = h.find(h => h.span && h.span.c !== "user") || h.find(h => h.span);
    if (sp) { this.select(sp.span.row, sp.span.i); return; }
    const ac = h.find(h => h.act || h.state);
    if (ac) { showActivity(this.run, ac); return; }
    if (h.length) { const b = h[0].bucket; const m = (b.t1 - b.t0) * 0.5; this.v0 = b.t0 - m; this.v1 = b.t1 + m; this.refresh(); }
  }
  select(row, i) {
    this.sel = {row, i}; focused = this;
    return api("region", {run: this.run.id, row, i}).then(d => { showDetail(this.run, d); this.refresh(); return d; });
  }
  reveal(row, i, s, e) {
    let id = this.warpNode[row]; const path = [];
    while (id !== undefined && id >= 0) { id = this.nodes[id].parent; if (id >= 0) path.push(id); }
    for (const p of path) this.expanded.add(p);
    const w = Math.max(e - s, 1) * 20; this.v0 = s - w / 2; this.v1 = this.v0 + w;
    this.layout();
    const k = this.rows.findIndex(r => r[0] === this.warpNode[row]);
    if (k >= 0) this.body.scrollTop = Math.max(0, k * ROWH - 60);
    return this.select(row, i);
  }
}

function esc(s) { return String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c])); }

function showDetail(run, d) {
  const rows = [["run", run.name], ["warp", `SM ${d.row.sm} · CTA ${d.row.cta.join(",")} · warp ${d.row.warp} (segment ${d.row.segment})`],
    ["region", `${d.region} · ${d.kind}${d.space ? " · " + d.space : ""}${d.mode ? " · probe " + d.mode : ""}`],
    ["PTX line", `${d.ptx_line}: ${d.ptx_text}`], ["CUDA line", d.source || "(no .loc)"],
    ["start … end", `${d.start} … ${d.end}`], ["measured", fmtT(run, d.measured)],
    ["ground truth", d.truth === undefined ? "(none in this run)" : fmtT(run, d.truth)]];
  if (d.truth !== undefined) rows.push(["probe error", (d.measured - d.truth) + " cycles"]);
  $("detailBody").innerHTML = "<table id=detailTable>" + rows.map(r => `<tr><td><b>${esc(r[0])}</b></td><td>${esc(r[1])}</td></tr>`).join("") + "</table>";
}

function showTransfer(run, t) {
  const ns = ps => (ps / 1000).toFixed(3) + " ns";
  const rows = [["run", run.name], ["transfer", t.name], ["buffer", t.buffer], ["direction", t.dir === "h2d" ? "host → device (before the kernel)" : "device → host (after the kernel)"],
    ["method", t.method], ["bytes", String(t.bytes)], ["start … end", `${ns(t.start_ps)} … ${ns(t.end_ps)} from the kernel's start`], ["duration", ns(t.end_ps - t.start_ps)],
    ["on the axis", `${t.start} … ${t.end} ${run.timer === "globaltimer" ? "ns" : "cyc"}`]];
  $("detailBody").innerHTML = "<table id=detailTable class=transfer>" + rows.map(r => `<tr><td><b>${esc(r[0])}</b></td><td>${esc(r[1])}</td></tr>`).join("") + "</table>";
}

function betValue() { const v = Math.round(+($("bet").value)); return v >= 0 ? v : 0; }

function showActivity(run, h) {
  const n = h.node, where = n.sm < 0 ? "GPU" : "SM " + n.sm, cyc = (a, b) => `${a} … ${b} cyc (${b - a} cycles)`;
  let rows;
  if (h.state) rows = [["run", run.name], ["row", where + " power state"], ["state", h.state.state + (h.state.state === "active" ? " (a CTA is resident)" : h.state.state === "gated" ? ` (idle ≥ BET ${betValue()} cycles: gated under ideal power gating)` : ` (idle < BET ${betValue()} cycles: not worth gating)`)],
    ["interval", cyc(h.state.s, h.state.e)]];
  else if (n.track === "power") rows = [["run", run.name], ["row", where + (n.sm < 0 ? ": SMs with a resident CTA" : " power state")], ["interval", cyc(h.act.t0, h.act.t1)],
    [n.sm < 0 ? "mean SMs active" : "active share", n.sm < 0 ? (h.act.busy / (h.act.t1 - h.act.t0)).toFixed(2) + " of " + Math.round(h.act.cap / (h.act.t1 - h.act.t0)) : (100 * h.act.busy / h.act.cap).toFixed(1) + " %"]];
  else if (n.track === "issue") { const w = h.act.t1 - h.act.t0; rows = [["run", run.name], ["row", `${where}: issue slots`], ["interval", cyc(h.act.t0, h.act.t1)],
    ["warp-instructions issued", `${h.act.busy} of ${h.act.cap} slots (${(100 * h.act.busy / h.act.cap).toFixed(1)} %, ${(h.act.busy / w).toFixed(2)} per cycle)`],
    ["active threads per issue", h.act.busy ? (h.act.lanes / h.act.busy).toFixed(1) + " of 32" : "–"]]; }
  else if (n.track === "stall") rows = [["run", run.name], ["row", `${where}: stalled (${n.unit})`], ["interval", cyc(h.act.t0, h.act.t1)],
    ["scheduler-cycles stalled", `${h.act.busy} of ${h.act.cap} (${(100 * h.act.busy / h.act.cap).toFixed(1)} %)`]];
  else { const w = h.act.t1 - h.act.t0; rows = [["run", run.name], ["row", `${where}: ${n.unit} units`], ["interval", cyc(h.act.t0, h.act.t1)],
    ["mean busy units", `${(h.act.busy / w).toFixed(2)} of ${h.act.cap / w} (${(100 * h.act.busy / h.act.cap).toFixed(1)} %)`],
    ["mean busy lanes", `${(h.act.lanes / w).toFixed(2)} of ${h.act.lanecap / w} (${(100 * h.act.lanes / (h.act.lanecap || 1)).toFixed(1)} %)`]]; }
  $("detailBody").innerHTML = "<table id=detailTable class=activity>" + rows.map(r => `<tr><td><b>${esc(r[0])}</b></td><td>${esc(r[1])}</td></tr>`).join("") + "</table>";
}

function showTab(name) {
  document.querySelectorAll(".tab").forEach(b => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".view").forEach(v => v.classList.toggle("active", v.id === name));
  if (name === "timeline") panels.forEach(p => p.layout());
  if (name === "source") loadSource();
  if (name === "charts") loadCharts();
}

function selectedRuns() { const a = +$("runA").value, b = $("runB").value; return b === "" || +b === a ? [a] : [a, +b]; }

function setupPanels() {
  $("panels").innerHTML = ""; panels = selectedRuns().map(id => new Panel(runs[id], $("panels"))); focused = panels[0];
  const v = document.querySelector(".view.active").id; if (v !== "timeline") showTab(v);
}

function loadSource() {
  const ids = selectedRuns();
  Promise.all(ids.map(id => api("source", {run: id}))).then(all => {
    $("sourceBody").innerHTML = all.map((lines, k) => {
      const run = runs[ids[k]], max = Math.max(1, ...lines.map(l => l.busy)), tot = lines.reduce((a, l) => a + l.busy, 0) || 1;
      return `<h3>${esc(run.name)} · kernel ${esc(run.kernel)}</h3><table class="src" data-run="${run.id}"><tr><th>PTX line</th><th>instruction</th><th>CUDA line</th><th>kind</th><th>instances</th><th>summed time</th><th>heat</th></tr>` +
        lines.map(l => `<tr class="line" data-run="${run.id}" data-line="${l.ptx_line}"><td>${l.ptx_line}</td><td><code>${esc(l.ptx_text)}</code></td><td>${esc(l.source || "")}</td><td>${esc(l.classes.join(", "))}</td><td>${l.count}</td><td>${l.busy} (${(100 * l.busy / tot).toFixed(1)} %)</td><td><span class="heat" style="width:${Math.round(120 * l.busy / max)}px"></span></td></tr>`).join("") + "</table>";
    }).join("");
    document.querySelectorAll("tr.line").forEach(tr => tr.onclick = () => findLine(+tr.dataset.run, +tr.dataset.line));
  });
}

function chartHTML(c) { return `<div class="chart" data-id="${esc(c.id)}"><h4>${esc(c.title)}</h4>${c.text ? `<p>${esc(c.text)}</p>` : ""}<div>${c.svg}</div></div>`; }

function loadCharts() {
  const ids = selectedRuns();
  Promise.all([api("compare", {}), ...ids.map(id => api("charts", {run: id}))]).then(([cmp, ...all]) => {
    $("chartsBody").innerHTML = `<section id="compareCharts"><h3>All ${runs.length} run(s)</h3>` + (cmp.length ? cmp.map(chartHTML).join("") : "<p>no charts</p>") + "</section>" +
      all.map((cs, k) => `<section class="runCharts" data-run="${ids[k]}"><h3>${esc(runs[ids[k]].name)}</h3>` + (cs.length ? cs.map(chartHTML).join("") : "<p>no charts</p>") + "</section>").join("");
    $("chartsBody").dataset.ready = "1";
  });
}

function showHits(runID, res, label) {
  const p = panels.find(p => p.run.id === runID) || panels[0];
  $("hits").innerHTML = `<h3>Search: ${esc(label)}</h3><p id="hitCount">${res.total} instance(s)${res.total > res.hits.length ? ", first " + res.hits.length + " listed" : ""}</p>` +
    res.hits.slice(0, 50).map((h, k) => `<div class="hit" data-k="${k}">row ${h.row} · #${h.i} · ${h.s}…${h.e}</div>`).join("");
  document.querySelectorAll(".hit").forEach(el => el.onclick = () => { const h = res.hits[+el.dataset.k]; showTab("timeline"); p.reveal(h.row, h.i, h.s, h.e); });
  if (res.hits.length) { const h = res.hits[0]; showTab("timeline"); return p.reveal(h.row, h.i, h.s, h.e); }
}

function findLine(runID, line) { return api("search", {run: runID, line}).then(res => showHits(runID, res, "PTX line " + line)); }

$("searchForm").addEventListener("submit", e => {
  e.preventDefault(); const q = $("search").value.trim(), id = (focused || panels[0]).run.id; if (!q) return;
  const prm = /^\d+$/.test(q) ? {run: id, line: q} : {run: id, q};
  api("search", prm).then(res => showHits(id, res, q)).catch(err => { $("hits").textContent = err.message; });
});

window.addEventListener("keydown", e => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  const p = focused || panels[0]; if (!p) return;
  const k = e.key.toLowerCase();
  if (k === "w") p.zoom(0.8); else if (k === "s") p.zoom(1.25); else if (k === "a") p.pan(-0.1); else if (k === "d") p.pan(0.1); else if (k === "f") p.fit(); else return;
  e.preventDefault();
});
window.addEventListener("resize", () => panels.forEach(p => p.refresh()));
document.querySelectorAll(".tab").forEach(b => b.onclick = () => showTab(b.dataset.tab));
$("bet").addEventListener("change", () => panels.forEach(p => p.refresh()));
$("colorBy").addEventListener("change", () => panels.forEach(p => { p.el.querySelector(".legend .kinds").outerHTML = legendHTML().split(" · ")[0]; p.refresh(); }));

api("runs", {}).then(rs => {
  runs = rs;
  for (const r of rs) { for (const s of [$("runA"), $("runB")]) { const o = document.createElement("option"); o.value = r.id; o.textContent = r.id + ": " + r.name; s.appendChild(o); } }
  if (rs.length > 1) $("runB").value = "1";
  $("runA").onchange = $("runB").onchange = setupPanels;
  setupPanels();
  document.body.dataset.ready = "1";
});
