// svmcore live views: the decision field and the convergence curves, drawn on a canvas.
//
// Streamlit calls the default export with the newest data on every frame, in the same DOM
// element (the component is keyed), so a frame only replaces pixels: nothing is re-mounted,
// nothing goes blank. Arrays arrive as base64 strings of little-endian typed arrays.

const STATE = new WeakMap();

function b64(s, Type) {
  if (!s) return new Type(0);
  const bin = atob(s);
  const buf = new ArrayBuffer(bin.length);
  const u8 = new Uint8Array(buf);
  for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
  return new Type(buf);
}

function b64q(s, xr, yr) {                  // int16 steps of the axis ranges, -32768 = gap
  const q = b64(s, Int16Array), out = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) {
    const [lo, hi] = i % 2 ? yr : xr;
    out[i] = q[i] === -32768 ? NaN : lo + (q[i] + 32767) / 65534 * (hi - lo);
  }
  return out;
}

function niceTicks(lo, hi, n, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) if (e >= lo - 1e-9 && e <= hi + 1e-9) out.push(e);
    return out;
  }
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(1, n);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => span / s <= n) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) out.push(+v.toPrecision(12));
  return out;
}

function fmt(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(0).replace("e+", "e");
  return +v.toPrecision(4) + "";
}

function setHTML(el, html) {                // only touch the DOM when the text changed
  if (el._html !== html) { el.innerHTML = html; el._html = html; }
}

function setup(parent, cls) {
  let st = STATE.get(parent);
  if (st) return st;
  const root = document.createElement("div");
  root.className = "svmc " + cls;
  const title = document.createElement("div");
  title.className = "svmc-title";
  const canvas = document.createElement("canvas");
  const legend = document.createElement("div");
  legend.className = "svmc-legend";
  root.append(title, canvas, legend);
  parent.appendChild(root);
  st = {root, title, canvas, legend, data: null, img: null, frames: 0};
  STATE.set(parent, st);
  new ResizeObserver(() => { if (st.draw) st.draw(); }).observe(root);
  window.addEventListener("resize", () => { if (st.draw) st.draw(); });
  return st;
}

function sizeCanvas(st, height, cap) {
  // cap(w): the most height the drawing can use at width w (a field whose width binds its
  // scale would otherwise sit in empty bands above and below)
  const w = Math.max(200, st.root.clientWidth);
  if (st.data && st.data.fit) {            // projector mode: down to the bottom of the window
    if (!st.fitObserver) {                  // ... so redraw when the content above it moves
      const block = st.root.closest(".block-container, [data-testid='stMainBlockContainer']");
      if (block) {
        st.fitObserver = new ResizeObserver(() => requestAnimationFrame(() => st.draw && st.draw()));
        st.fitObserver.observe(block);
      }
    }
    const top = st.canvas.getBoundingClientRect().top + window.scrollY;
    height = Math.max(220, window.innerHeight - top - st.legend.offsetHeight - 10);
  }
  const most = cap ? cap(w) : Infinity;
  if (isFinite(most)) height = Math.max(100, Math.min(height, Math.ceil(most)));
  const dpr = window.devicePixelRatio || 1;
  const c = st.canvas;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(height * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(height * dpr);
    c.style.width = w + "px";
    c.style.height = height + "px";
  }
  const ctx = c.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return [ctx, w, height];
}

function legendHTML(items, font) {
  return items.map(it => {
    const sw = it.line
      ? `<svg width="26" height="10"><line x1="1" y1="5" x2="25" y2="5" stroke="${it.color}" stroke-width="${it.width || 2}" ${it.dash ? 'stroke-dasharray="5,3"' : ""}/></svg>`
      : `<svg width="14" height="14"><circle cx="7" cy="7" r="${it.r || 4.5}" fill="${it.fill || it.color}" stroke="${it.stroke || "white"}" stroke-width="${it.sw || 1}"/></svg>`;
    return `<span class="svmc-item" style="font-size:${font}px">${sw}${it.name}</span>`;
  }).join("");
}

// ------------------------------------------------------------------------------------ field

function drawField(st) {
  const d = st.data;
  const font = d.font || 12;
  const padL = 3.6 * font, padB = 2.6 * font, padR = 4.2 * font, padT = font + 6;  // f(x) label
  const [x0, x1] = d.x, [y0, y1] = d.y;
  // one scale for both axes: when the width binds it, the canvas is only as high as the plot
  const [ctx, W, H] = sizeCanvas(st, d.height,
                                 w => padT + padB + (w - padL - padR) * (y1 - y0) / (x1 - x0));
  ctx.clearRect(0, 0, W, H);
  const aw = W - padL - padR, ah = H - padT - padB;
  const s = Math.min(aw / (x1 - x0), ah / (y1 - y0));
  const pw = s * (x1 - x0), ph = s * (y1 - y0);
  const ox = padL + (aw - pw) / 2, oy = padT + (ah - ph) / 2;
  const X = x => ox + (x - x0) * s, Y = y => oy + (y1 - y) * s;
  st.map = {X, Y, s, ox, oy, x0, y1};
  if (st.img) {
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(st.img, X(d.img_x[0]), Y(d.img_y[1]), (d.img_x[1] - d.img_x[0]) * s,
                  (d.img_y[1] - d.img_y[0]) * s);
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(ox, oy, pw, ph);
  ctx.clip();
  const path = (xy, color, width, dash) => {
    if (!xy.length) return;
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < xy.length; i += 2) {
      const a = xy[i], b = xy[i + 1];
      if (!isFinite(a) || !isFinite(b)) { pen = false; continue; }
      if (pen) ctx.lineTo(X(a), Y(b)); else { ctx.moveTo(X(a), Y(b)); pen = true; }
    }
    ctx.setLineDash(dash || []);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.stroke();
    ctx.setLineDash([]);
  };
  path(st.margins, "rgba(30,30,30,0.85)", 1.5, [6, 4]);
  path(st.boundary, "#111111", 2.5);
  if (st.last) path(st.last, d.last_color || "#c2185b", 2, [4, 3]);   // last iterate (averaging)
  const col = {"1": d.colors.pos, "-1": d.colors.neg};
  const P = st.train, L = st.labels, R = st.ring, S = st.size;
  const ringCol = ["#ffffff", "#111111", "#ff9d00"];
  for (let i = 0; i < L.length; i++) {
    const r = (S.length ? S[i] : 7) / 2;
    ctx.beginPath();
    ctx.arc(X(P[2 * i]), Y(P[2 * i + 1]), r, 0, 2 * Math.PI);
    ctx.fillStyle = col[L[i]];
    ctx.fill();
    const code = R.length ? R[i] : 0;
    ctx.lineWidth = code ? 2 : 1;
    ctx.strokeStyle = ringCol[code];
    ctx.stroke();
  }
  const T = st.test, TL = st.tlabels;
  for (let i = 0; i < TL.length; i++) {
    ctx.beginPath();
    ctx.arc(X(T[2 * i]), Y(T[2 * i + 1]), 3.6, 0, 2 * Math.PI);
    ctx.fillStyle = "white";
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = col[TL[i]];
    ctx.stroke();
  }
  for (const m of d.marks || []) {         // pinned / picked points
    ctx.beginPath();
    ctx.arc(X(m.x), Y(m.y), m.r || 10, 0, 2 * Math.PI);
    ctx.lineWidth = m.width || 3;
    ctx.strokeStyle = m.color || "#00a651";
    ctx.stroke();
  }
  for (const g of d.segments || []) {      // optional lines and arrows (step-through page)
    const ax = X(g.x0), ay = Y(g.y0), bx = X(g.x1), by = Y(g.y1);
    ctx.beginPath();
    ctx.moveTo(ax, ay);
    ctx.lineTo(bx, by);
    ctx.setLineDash(g.dash ? [6, 4] : []);
    ctx.strokeStyle = g.color || "#000000";
    ctx.lineWidth = g.width || 2;
    ctx.stroke();
    ctx.setLineDash([]);
    const len = Math.hypot(bx - ax, by - ay);
    if (g.head && len > 1) {
      const ux = (bx - ax) / len, uy = (by - ay) / len, h = Math.min(10, len / 2);
      ctx.beginPath();
      ctx.moveTo(bx, by);
      ctx.lineTo(bx - h * ux - 0.5 * h * uy, by - h * uy + 0.5 * h * ux);
      ctx.lineTo(bx - h * ux + 0.5 * h * uy, by - h * uy - 0.5 * h * ux);
      ctx.closePath();
      ctx.fillStyle = g.color || "#000000";
      ctx.fill();
    }
  }
  ctx.restore();
  // axes
  ctx.strokeStyle = "#888";
  ctx.lineWidth = 1;
  ctx.strokeRect(ox, oy, pw, ph);
  ctx.fillStyle = "#333";
  ctx.font = `${font}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const v of niceTicks(x0, x1, Math.max(4, Math.floor(pw / (4 * font))), false)) {
    ctx.fillText(fmt(v), X(v), oy + ph + 4);
    ctx.beginPath(); ctx.moveTo(X(v), oy + ph); ctx.lineTo(X(v), oy + ph + 3); ctx.stroke();
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const v of niceTicks(y0, y1, Math.max(3, Math.floor(ph / (3 * font))), false)) {
    ctx.fillText(fmt(v), ox - 5, Y(v));
    ctx.beginPath(); ctx.moveTo(ox - 3, Y(v)); ctx.lineTo(ox, Y(v)); ctx.stroke();
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  if (d.xlabel) ctx.fillText(d.xlabel, ox + pw / 2, Math.min(H, oy + ph + padB));  // under its ticks
  if (d.ylabel) {
    ctx.save(); ctx.translate(font * 0.9, oy + ph / 2); ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle"; ctx.fillText(d.ylabel, 0, 0); ctx.restore();
  }
  // colour bar
  const cbx = ox + pw + 0.8 * font, cbw = 0.8 * font, cbh = Math.min(ph, 14 * font);
  const cby = oy + (ph - cbh) / 2;
  const g = ctx.createLinearGradient(0, cby + cbh, 0, cby);
  for (const [t, c] of d.scale) g.addColorStop(t, c);
  ctx.fillStyle = g;
  ctx.fillRect(cbx, cby, cbw, cbh);
  ctx.strokeRect(cbx, cby, cbw, cbh);
  ctx.fillStyle = "#333";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (const v of [-d.clip, -1, 0, 1, d.clip]) {
    const yy = cby + cbh * (1 - (v + d.clip) / (2 * d.clip));
    ctx.fillText(fmt(v), cbx + cbw + 3, yy);
  }
  ctx.textBaseline = "bottom";
  ctx.fillText("f(x)", cbx - 2, cby - 3);
}

function renderField(component) {
  const {data, parentElement, setTriggerValue} = component;
  const st = setup(parentElement, "svmc-field");
  st.data = data;
  setHTML(st.title, data.title + (data.note ? `<br><small>${data.note}</small>` : ""));
  st.title.style.fontSize = (data.font + 2) + "px";
  st.train = b64q(data.train, data.x, data.y);
  st.labels = b64(data.labels, Int8Array);
  st.ring = b64(data.ring, Uint8Array);
  st.size = b64(data.size, Uint8Array);
  st.test = b64q(data.test, data.x, data.y);
  st.tlabels = b64(data.tlabels, Int8Array);
  st.boundary = b64q(data.boundary, data.x, data.y);
  st.margins = b64q(data.margins, data.x, data.y);
  st.last = data.last ? b64q(data.last, data.x, data.y) : null;
  setHTML(st.legend, legendHTML(data.legend, data.font));
  st.draw = () => drawField(st);
  if (data.img && data.img !== st.imgSrc) {          // keep the last image until the next loads
    const im = new Image();
    im.onload = () => { st.img = im; st.imgSrc = data.img; st.root.setAttribute("data-drawn", "1");
                        st.draw(); };
    im.src = data.img;
  }
  st.setTrigger = setTriggerValue;
  st.root.setAttribute("data-frames", ++st.frames);      // for tests and the live probe
  st.root.setAttribute("data-font", data.font);
  st.root.setAttribute("data-t", data.t === undefined ? "" : data.t);
  st.canvas.style.cursor = data.mode === "view" ? "default" : "crosshair";
  st.canvas.onclick = (ev) => {
    const m = st.map, dd = st.data;
    if (!m || dd.mode === "view") return;
    const rect = st.canvas.getBoundingClientRect();
    const px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    const x = m.x0 + (px - m.ox) / m.s, y = m.y1 - (py - m.oy) / m.s;
    let best = -1, bd = 9 * 9;
    const scan = (A, off) => {
      for (let i = 0; i < A.length / 2; i++) {
        const dx = m.X(A[2 * i]) - px, dy = m.Y(A[2 * i + 1]) - py, q = dx * dx + dy * dy;
        if (q < bd) { bd = q; best = off + i; }
      }
    };
    scan(st.train, 0);
    scan(st.test, st.train.length / 2);
    st.setTrigger("click", {x: x, y: y, index: best >= 0 ? best : null, n: Date.now()});
  };
  st.draw();
}

// ----------------------------------------------------------------------------------- curves

function fitText(ctx, text, maxw) {          // cut with "…" to maxw px (the canvas's tooltip
  if (ctx.measureText(text).width <= maxw) return text;      // holds every title in full)
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, mid) + "…").width <= maxw) lo = mid; else hi = mid - 1;
  }
  return text.slice(0, lo) + "…";
}

function drawCurves(st) {
  const d = st.data;
  const font = d.font || 12;
  const [ctx, W, H] = sizeCanvas(st, d.height);
  ctx.clearRect(0, 0, W, H);
  const n = d.panels.length, cols = d.cols || 1, rows = Math.ceil(n / cols);
  const gapY = 2.2 * font, gapX = 2 * font, padL = 4.2 * font, padB = 2.8 * font;
  const cw = (W - padL - gapX * (cols - 1) - 8) / cols;
  const ch = (H - padB - gapY * rows) / rows;
  const lx = v => Math.log10(v);
  ctx.font = `${font}px sans-serif`;
  d.panels.forEach((p, k) => {
    const r = Math.floor(k / cols), c = k % cols;
    const ox = padL + c * (cw + gapX), oy = gapY * (r + 1) + r * ch;
    let xs = [], ys = [];
    for (const s of p.series) {
      const X = b64(s.x, Float32Array), Y = b64(s.y, Float32Array);
      s._x = X; s._y = Y;
      for (let i = 0; i < X.length; i++) {
        if (!isFinite(X[i]) || !isFinite(Y[i])) continue;
        if (d.log_x && !(X[i] > 0)) continue;
        if (p.log_y && !(Y[i] > 0)) continue;
        xs.push(d.log_x ? lx(X[i]) : X[i]);
        ys.push(p.log_y ? lx(Y[i]) : Y[i]);
      }
    }
    ctx.fillStyle = "#222";
    ctx.textAlign = "left";
    ctx.textBaseline = "bottom";
    ctx.fillText(fitText(ctx, p.title, cols > 1 ? cw + gapX - font : W - ox), ox, oy - 3);
    ctx.strokeStyle = "#bbb";
    ctx.lineWidth = 1;
    ctx.strokeRect(ox, oy, cw, ch);
    if (!xs.length) return;
    let [xa, xb] = [Math.min(...xs), Math.max(...xs)], [ya, yb] = [Math.min(...ys), Math.max(...ys)];
    if (d.x_range) { xa = d.log_x ? lx(Math.max(d.x_range[0], 1e-12)) : d.x_range[0]; xb = Math.max(xb, d.log_x ? lx(d.x_range[1]) : d.x_range[1]); }
    if (xb - xa < 1e-12) { xa -= 0.5; xb += 0.5; }
    if (yb - ya < 1e-12) { ya -= 0.5; yb += 0.5; }
    const my = 0.06 * (yb - ya); ya -= my; yb += my;
    const PX = v => ox + (v - xa) / (xb - xa) * cw, PY = v => oy + ch - (v - ya) / (yb - ya) * ch;
    ctx.fillStyle = "#444";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (const v of niceTicks(ya, yb, Math.max(2, Math.floor(ch / (2.2 * font))), p.log_y)) {
      ctx.fillText(p.log_y ? fmt(Math.pow(10, v)) : (p.percent ? fmt(v) + "%" : fmt(v)), ox - 4, PY(v));
      ctx.strokeStyle = "#eee"; ctx.beginPath(); ctx.moveTo(ox, PY(v)); ctx.lineTo(ox + cw, PY(v)); ctx.stroke();
    }
    if (r === rows - 1 || k + cols >= n) {
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      for (const v of niceTicks(xa, xb, Math.max(2, Math.floor(cw / (5 * font))), d.log_x)) {
        const label = d.log_x ? fmt(Math.pow(10, v)) : fmt(v), half = ctx.measureText(label).width / 2;
        // kept inside its panel: a label at the right edge ran into the next panel's y ticks
        ctx.fillText(label, Math.max(ox + half, Math.min(PX(v), ox + cw - half)), oy + ch + 3);
      }
      ctx.textBaseline = "bottom";
      ctx.fillText(d.x_title, ox + cw / 2, H);
    }
    (d.marks || []).forEach((m, j) => {               // mid-run changes: a line and its label
      const v = d.log_x ? (m.x > 0 ? lx(m.x) : null) : m.x;
      if (v === null || v < xa || v > xb) return;
      ctx.strokeStyle = "#7a7a7a"; ctx.setLineDash([3, 3]);
      ctx.beginPath(); ctx.moveTo(PX(v), oy); ctx.lineTo(PX(v), oy + ch); ctx.stroke();
      ctx.setLineDash([]);
      // on every panel, inside it: left of the line when the right side has no room
      const right = PX(v) + 3 + ctx.measureText(m.label).width <= ox + cw;
      ctx.fillStyle = "#555"; ctx.textAlign = right ? "left" : "right"; ctx.textBaseline = "top";
      ctx.fillText(m.label, right ? PX(v) + 3 : PX(v) - 3, oy + 2 + (j % 3) * (font + 2));
    });
    ctx.save();
    ctx.beginPath(); ctx.rect(ox, oy, cw, ch); ctx.clip();
    // a series: a line with a dot at each point; optional: fill (a closed polygon in that
    // colour, e.g. the ε-tube), line: false (markers only), dots: false, r, stroke, width
    for (const s of p.series) {
      ctx.strokeStyle = s.color;
      ctx.fillStyle = s.fill || s.color;
      ctx.lineWidth = s.width || 2;
      ctx.setLineDash(s.dash ? [6, 4] : []);
      ctx.beginPath();
      let pen = false;
      const X = s._x, Y = s._y, pts = [];
      for (let i = 0; i < X.length; i++) {
        const ok = isFinite(X[i]) && isFinite(Y[i]) && (!d.log_x || X[i] > 0) && (!p.log_y || Y[i] > 0);
        if (!ok) { pen = false; continue; }
        const a = PX(d.log_x ? lx(X[i]) : X[i]), b = PY(p.log_y ? lx(Y[i]) : Y[i]);
        if (pen) ctx.lineTo(a, b); else { ctx.moveTo(a, b); pen = true; }
        pts.push([a, b]);
      }
      if (s.fill) { ctx.closePath(); ctx.fill(); }
      else if (s.line !== false) ctx.stroke();
      ctx.setLineDash([]);
      if (s.dots === false || s.fill) continue;
      const r = s.r || 2.2;
      if (s.stroke) { ctx.strokeStyle = s.stroke; ctx.lineWidth = 1; }
      for (const [a, b] of pts) {
        ctx.beginPath(); ctx.arc(a, b, r, 0, 2 * Math.PI); ctx.fill();
        if (s.stroke) ctx.stroke();
      }
    }
    ctx.restore();
  });
}

function renderCurves(component) {
  const {data, parentElement} = component;
  const st = setup(parentElement, "svmc-curves");
  st.data = data;
  if (st.title.textContent !== (data.title || "")) st.title.textContent = data.title || "";
  st.title.style.fontSize = (data.font + 1) + "px";
  setHTML(st.legend, legendHTML(data.legend, data.font));
  st.draw = () => drawCurves(st);
  st.root.setAttribute("data-frames", ++st.frames);
  st.root.setAttribute("data-panels", data.panels.map(p => p.title).join(" | "));
  st.canvas.title = data.panels.map(p => p.title).join("\n");   // titles cut to their panel
  st.draw();
}

export default function (component) {
  const raw = component.data;                // {frame: "<json>"}: see canvas.py
  const data = raw && typeof raw.frame === "string" ? JSON.parse(raw.frame) : raw;
  if (!data) return;
  if (data.kind === "curves") renderCurves({...component, data});
  else renderField({...component, data});
}
