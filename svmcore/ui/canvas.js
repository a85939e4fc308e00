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

function panelColumns(n, asked, H, font) {
  // columns of the curves' n panels: the frame's (default one), more when the height H leaves
  // a panel less than two lines of text one above the other (projector mode with the 3-D
  // view: four panels in the window's last 220 px were 3 px strips with their labels piled up)
  const gapY = 2.2 * font, padB = 2.8 * font;
  const high = c => { const r = Math.ceil(n / c); return (H - padB - gapY * r) / r; };
  let cols = Math.max(1, Math.min(n, asked || 1));
  while (cols < n && high(cols) < 2 * font) cols++;
  return cols;
}

function niceTicks(lo, hi, n, log) {
  if (log) {
    // decades, every k-th one down from the top when more than n would fit (a short panel's
    // labels overlapped)
    const first = Math.ceil(lo - 1e-9), last = Math.floor(hi + 1e-9);
    const k = Math.max(1, Math.ceil((last - first + 1) / Math.max(1, n)));
    const out = [];
    for (let e = last; e >= first; e -= k) out.unshift(e);
    return out;
  }
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / Math.max(1, n);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => span / s <= n) || 10 * mag;
  const out = [];
  // k * step, not a running sum: the tick at 0 is exactly 0 (a sum left -6e-17 there)
  for (let k = Math.ceil(lo / step); k * step <= hi + 1e-9 * span; k++) out.push(+(k * step).toPrecision(12));
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
  st = {root, title, canvas, legend, frames: 0, paints: 0, keyframes: 0, queue: [], mix: 0,
        shown: null};
  STATE.set(parent, st);
  root.__svmc = st;                         // what the view shows, for tests and probes
  new ResizeObserver(() => { if (st.draw) st.draw(); }).observe(root);
  window.addEventListener("resize", () => {   // projector text follows the window's size
    if (st.shown) styleTexts(st, st.shown.d);
    if (st.draw) st.draw();
  });
  return st;
}

function sizeCanvas(st, height, cap) {
  // cap(w): the most height the drawing can use at width w (a field whose width binds its
  // scale would otherwise sit in empty bands above and below)
  const w = Math.max(200, st.root.clientWidth);
  if (st.shown && st.shown.d.fit) {        // projector mode: down to the bottom of the window
    if (!st.fitObserver) {                  // ... so redraw when the content above it moves
      const block = st.root.closest(".block-container, [data-testid='stMainBlockContainer']");
      if (block) {
        st.fitObserver = new ResizeObserver(() => requestAnimationFrame(() => st.draw && st.draw()));
        st.fitObserver.observe(block);
      }
    }
    const top = st.canvas.getBoundingClientRect().top + window.scrollY;
    height = Math.max(220, window.innerHeight - top - st.legend.offsetHeight - 10
                           - (st.shown.d.keep || 0));    // keep: px the page shows below
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
  return (items || []).map(it => {
    const sw = it.line
      ? `<svg width="26" height="10"><line x1="1" y1="5" x2="25" y2="5" stroke="${it.color}" stroke-width="${it.width || 2}" ${it.dash ? 'stroke-dasharray="5,3"' : ""}/></svg>`
      : `<svg width="14" height="14"><circle cx="7" cy="7" r="${it.r || 4.5}" fill="${it.fill || it.color}" stroke="${it.stroke || "white"}" stroke-width="${it.sw || 1}"/></svg>`;
    return `<span class="svmc-item" style="font-size:${font}px">${sw}${it.name}</span>`;
  }).join("");
}

// ------------------------------------------------------------------------------------ field
//
// A field frame carries f on its grid, one byte per node (127 + round(126 f / clip), rows of
// increasing y). The view colours the bytes through the colour scale and traces f = 0 and
// f = ±1 by marching squares, so that between two keyframes it can draw the blend of their
// fields: the picture moves at the display's rate while every number on the page stays a real
// keyframe's.

const DECODED = new Map();                 // base64 string -> typed array (the last messages')

function cached(s, make) {
  if (!s) return make(s);
  let v = DECODED.get(s);
  if (v === undefined) {
    v = make(s);
    DECODED.set(s, v);
    if (DECODED.size > 400) DECODED.delete(DECODED.keys().next().value);
  }
  return v;
}

function keyframe(d) {                     // the typed arrays of one field frame, decoded once
  const q = s => cached(s + "|" + d.x + d.y, () => b64q(s, d.x, d.y));
  return {
    d, t: d.t,
    z: d.z ? cached(d.z, s => b64(s, Uint8Array)) : null,
    train: q(d.train), labels: cached(d.labels, s => b64(s, Int8Array)),
    ring: cached(d.ring, s => b64(s, Uint8Array)), size: cached(d.size, s => b64(s, Uint8Array)),
    test: q(d.test), tlabels: cached(d.tlabels, s => b64(s, Int8Array)),
    fade: d.fade ? cached(d.fade, s => b64(s, Uint8Array)) : null,   // per point opacity (a stream)
    last: d.last ? q(d.last) : null,
  };
}

function colourTable(scale) {              // byte value -> RGB along the colour scale
  const rgb = c => [1, 3, 5].map(k => parseInt(c.slice(k, k + 2), 16));
  const out = new Uint8ClampedArray(256 * 3);
  for (let v = 0; v < 256; v++) {
    const t = Math.min(1, Math.max(0, (v - 127) / 252 + 0.5));
    let k = 1;
    while (k < scale.length - 1 && scale[k][0] < t) k++;
    const [t0, c0] = scale[k - 1], [t1, c1] = scale[k];
    const w = t1 > t0 ? (t - t0) / (t1 - t0) : 0, a = rgb(c0), b = rgb(c1);
    for (let j = 0; j < 3; j++) out[3 * v + j] = Math.round(a[j] + w * (b[j] - a[j]));
  }
  return out;
}

function blend(st, A, B, a) {              // the field between two keyframes (bytes as floats)
  const n = A.z.length;
  if (!st.zmix || st.zmix.length !== n) st.zmix = new Float32Array(n);
  const Z = st.zmix;
  if (!B || a <= 0 || B.z.length !== n) { for (let i = 0; i < n; i++) Z[i] = A.z[i]; return Z; }
  for (let i = 0; i < n; i++) Z[i] = A.z[i] + a * (B.z[i] - A.z[i]);
  return Z;
}

function fieldImage(st, Z, nx, ny) {       // the field's colours, one pixel per grid node
  if (!st.off || st.off.width !== nx || st.off.height !== ny) {
    st.off = document.createElement("canvas");
    st.off.width = nx; st.off.height = ny;
    st.offImg = st.off.getContext("2d").createImageData(nx, ny);
  }
  const px = st.offImg.data, T = st.lut;
  for (let j = 0; j < ny; j++) {
    const row = (ny - 1 - j) * nx;          // the top row is the largest y
    for (let i = 0; i < nx; i++) {
      const v = 3 * Math.round(Z[j * nx + i]), o = 4 * (row + i);
      px[o] = T[v]; px[o + 1] = T[v + 1]; px[o + 2] = T[v + 2]; px[o + 3] = 255;
    }
  }
  st.off.getContext("2d").putImageData(st.offImg, 0, 0);
  return st.off;
}

// The level line Z = lev by marching squares, as segments in pixels (gx(i), gy(j): the pixel
// of grid column i, row j). A saddle cell is split by the value at its centre.
function isoline(ctx, Z, nx, ny, lev, gx, gy) {
  ctx.beginPath();
  const e = new Float64Array(8);
  for (let j = 0; j < ny - 1; j++) {
    for (let i = 0; i < nx - 1; i++) {
      const a = Z[j * nx + i], b = Z[j * nx + i + 1], c = Z[(j + 1) * nx + i + 1],
        d = Z[(j + 1) * nx + i];
      const code = (a > lev) | (b > lev) << 1 | (c > lev) << 2 | (d > lev) << 3;
      if (code === 0 || code === 15) continue;
      // the crossings on the edges a-b (0), b-c (1), c-d (2), d-a (3)
      e[0] = gx(i + (lev - a) / (b - a)); e[1] = gy(j);
      e[2] = gx(i + 1); e[3] = gy(j + (lev - b) / (c - b));
      e[4] = gx(i + (lev - d) / (c - d)); e[5] = gy(j + 1);
      e[6] = gx(i); e[7] = gy(j + (lev - a) / (d - a));
      const seg = (p, q) => { ctx.moveTo(e[2 * p], e[2 * p + 1]); ctx.lineTo(e[2 * q], e[2 * q + 1]); };
      const mid = (a + b + c + d) / 4 > lev;
      switch (code) {
        case 1: case 14: seg(3, 0); break;
        case 2: case 13: seg(0, 1); break;
        case 3: case 12: seg(3, 1); break;
        case 4: case 11: seg(1, 2); break;
        case 6: case 9: seg(0, 2); break;
        case 7: case 8: seg(3, 2); break;
        case 5: if (mid) { seg(0, 1); seg(2, 3); } else { seg(3, 0); seg(1, 2); } break;
        case 10: if (mid) { seg(3, 0); seg(1, 2); } else { seg(0, 1); seg(2, 3); } break;
      }
    }
  }
}

// The coefficients [c, a, b] of f = c + a x + b y between two keyframes of a linear model
// (the blend of two affine fields is affine), or null when either keyframe is not affine.
function affineBlend(A, B, a) {
  const p = A.d.line;
  if (!p) return null;
  if (!B || a <= 0) return p;
  const q = B.d.line;
  if (!q) return null;
  return [p[0] + a * (q[0] - p[0]), p[1] + a * (q[1] - p[1]), p[2] + a * (q[2] - p[2])];
}

// The line c + a x + b y = lev across the box xr x yr, as one straight segment
// (svmcore.viz.frame.line_segment computes the same end points).
function lineEnds(L, lev, xr, yr) {
  const [c, a, b] = L, pts = [];
  if (Math.abs(b) > 1e-300) for (const x of xr) {
    const y = (lev - c - a * x) / b;
    if (y >= yr[0] && y <= yr[1]) pts.push([x, y]);
  }
  if (Math.abs(a) > 1e-300) for (const y of yr) {
    const x = (lev - c - b * y) / a;
    if (x >= xr[0] && x <= xr[1]) pts.push([x, y]);
  }
  let best = null, bd = -1;
  for (const p of pts) for (const q of pts) {
    const dd = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2;
    if (dd > bd) { bd = dd; best = [p, q]; }
  }
  return best && bd > 0 ? best : null;
}

function straight(ctx, L, lev, xr, yr, X, Y) {
  ctx.beginPath();
  const e = lineEnds(L, lev, xr, yr);
  if (e) { ctx.moveTo(X(e[0][0]), Y(e[0][1])); ctx.lineTo(X(e[1][0]), Y(e[1][1])); }
}

function drawAxes(g, d, {W, H, X, Y, ox, oy, pw, ph, padB, font, x0, x1, y0, y1}) {
  g.strokeStyle = "#888";
  g.lineWidth = 1;
  g.strokeRect(ox, oy, pw, ph);
  g.fillStyle = "#333";
  g.font = `${font}px sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "top";
  for (const v of niceTicks(x0, x1, Math.max(4, Math.floor(pw / (4 * font))), false)) {
    g.fillText(fmt(v), X(v), oy + ph + 4);
    g.beginPath(); g.moveTo(X(v), oy + ph); g.lineTo(X(v), oy + ph + 3); g.stroke();
  }
  g.textAlign = "right";
  g.textBaseline = "middle";
  for (const v of niceTicks(y0, y1, Math.max(3, Math.floor(ph / (3 * font))), false)) {
    g.fillText(fmt(v), ox - 5, Y(v));
    g.beginPath(); g.moveTo(ox - 3, Y(v)); g.lineTo(ox, Y(v)); g.stroke();
  }
  g.textAlign = "center";
  g.textBaseline = "bottom";
  if (d.xlabel) g.fillText(d.xlabel, ox + pw / 2, Math.min(H, oy + ph + padB));  // under its ticks
  if (d.ylabel) {
    g.save(); g.translate(font * 0.9, oy + ph / 2); g.rotate(-Math.PI / 2);
    g.textBaseline = "middle"; g.fillText(d.ylabel, 0, 0); g.restore();
  }
  // colour bar
  const cbx = ox + pw + 0.8 * font, cbw = 0.8 * font, cbh = Math.min(ph, 14 * font);
  const cby = oy + (ph - cbh) / 2;
  const grad = g.createLinearGradient(0, cby + cbh, 0, cby);
  for (const [t, c] of d.scale) grad.addColorStop(t, c);
  g.fillStyle = grad;
  g.fillRect(cbx, cby, cbw, cbh);
  g.strokeRect(cbx, cby, cbw, cbh);
  g.fillStyle = "#333";
  g.textAlign = "left";
  g.textBaseline = "middle";
  for (const v of [-d.clip, -1, 0, 1, d.clip]) {
    const yy = cby + cbh * (1 - (v + d.clip) / (2 * d.clip));
    g.fillText(fmt(v), cbx + cbw + 3, yy);
  }
  g.textBaseline = "bottom";
  g.fillText("f(x)", cbx - 2, cby - 3);
}

// a field's left and right margins, in font sizes (tick labels; the colour bar and its labels)
const FIELD_PAD_L = 3.6, FIELD_PAD_R = 4.2;

function fontOf(d, st) {
  // the frame's text size; in projector mode (fit) it grows with the window as the page's own
  // text does (the projector CSS's unit: the window against 1280 x 720), never below the frame's.
  // In a narrow field (a race's fields side by side) the text grows only while the margins stay
  // within 22 % of its width, so the picture keeps its size.
  const font = d.font || 12;
  if (!d.fit) return font;
  let grown = font * Math.max(1, Math.min(window.innerWidth / 1280, window.innerHeight / 720));
  if (d.kind === "field" && st) {
    grown = Math.min(grown, 0.22 * st.root.clientWidth / (FIELD_PAD_L + FIELD_PAD_R));
  }
  return Math.round(Math.max(font, grown));
}

function styleTexts(st, d) {               // the title's and the key's size, of the frame shown
  const font = fontOf(d, st);
  st.title.style.fontSize = (font + (d.kind === "field" ? 2 : 1)) + "px";
  setHTML(st.legend, legendHTML(d.legend, font));
  st.root.setAttribute("data-font", font);
}

function drawField(st) {
  const A = st.shown;
  if (!A) return;
  const B = st.queue.length ? st.queue[0].k : null, a = B ? st.mix : 0;
  const d = A.d;
  const font = fontOf(d, st);
  const padL = FIELD_PAD_L * font, padB = 2.6 * font, padR = FIELD_PAD_R * font;
  const padT = font + 6;                    // the f(x) label
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
  ctx.save();
  ctx.beginPath();
  ctx.rect(ox, oy, pw, ph);
  ctx.clip();
  const [nx, ny] = d.grid || [0, 0];
  if (A.z && A.z.length === nx * ny && nx > 1 && ny > 1) {
    if (st.lutScale !== d.scale) { st.lut = colourTable(d.scale); st.lutScale = d.scale; }
    const Z = blend(st, A, B, a);
    const hx = pw / (nx - 1), hy = ph / (ny - 1);     // node spacing in pixels
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(fieldImage(st, Z, nx, ny), ox - hx / 2, oy - hy / 2, pw + hx, ph + hy);
    const gx = i => ox + i * hx, gy = j => oy + ph - j * hy, c = d.clip || 2;
    // a linear model: its lines from the blend of the keyframes' coefficients, exactly
    const LN = affineBlend(A, B, a);
    const level = LN ? (lev) => straight(ctx, LN, lev, d.x, d.y, X, Y)
      : (lev) => isoline(ctx, Z, nx, ny, 127 + 126 * lev / c, gx, gy);
    ctx.strokeStyle = "rgba(30,30,30,0.85)"; ctx.lineWidth = 1.5; ctx.setLineDash([6, 4]);
    for (const lev of [-1, 1]) if (lev <= c) { level(lev); ctx.stroke(); }
    ctx.setLineDash([]);
    ctx.strokeStyle = "#111111"; ctx.lineWidth = 2.5;
    level(0);
    ctx.stroke();
    st.root.setAttribute("data-lines", LN ? "exact" : "traced");
    st.lines = LN;
  }
  const path = (xy, color, width, dash) => {
    if (!xy || !xy.length) return;
    ctx.beginPath();
    let pen = false;
    for (let i = 0; i < xy.length; i += 2) {
      const p = xy[i], q = xy[i + 1];
      if (!isFinite(p) || !isFinite(q)) { pen = false; continue; }
      if (pen) ctx.lineTo(X(p), Y(q)); else { ctx.moveTo(X(p), Y(q)); pen = true; }
    }
    ctx.setLineDash(dash || []);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.stroke();
    ctx.setLineDash([]);
  };
  if (A.last) path(A.last, d.last_color || "#c2185b", 2, [4, 3]);   // last iterate (averaging)
  const col = {"1": d.colors.pos, "-1": d.colors.neg};
  const P = A.train, L = A.labels, ringCol = ["#ffffff", "#111111", "#ff9d00"];
  // support vectors grow and shrink between keyframes; a ring is the nearer keyframe's
  const SA = A.size, SB = B && B.size.length === SA.length ? B.size : SA;
  const R = B && a >= 0.5 && B.ring.length === A.ring.length ? B.ring : A.ring;
  const drag = st.drag && st.drag.moved ? st.drag : null;
  const F = A.fade && A.fade.length === L.length ? A.fade : null;
  for (let i = 0; i < L.length; i++) {
    if (F) ctx.globalAlpha = F[i] / 255;
    const r = (SA.length ? SA[i] + a * (SB[i] - SA[i]) : 7) / 2;
    const px = drag && drag.index === i ? drag.px : X(P[2 * i]);
    const py = drag && drag.index === i ? drag.py : Y(P[2 * i + 1]);
    ctx.beginPath();
    ctx.arc(px, py, r, 0, 2 * Math.PI);
    ctx.fillStyle = col[L[i]];
    ctx.fill();
    const code = R.length ? R[i] : 0;
    ctx.lineWidth = code ? 2 : 1;
    ctx.strokeStyle = ringCol[code];
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  const T = A.test, TL = A.tlabels;
  for (let i = 0; i < TL.length; i++) {
    ctx.beginPath();
    ctx.arc(X(T[2 * i]), Y(T[2 * i + 1]), 3.6, 0, 2 * Math.PI);
    ctx.fillStyle = "white";
    ctx.fill();
    ctx.lineWidth = 2;
    ctx.strokeStyle = col[TL[i]];
    ctx.stroke();
  }
  drawPending(st, ctx, X, Y, col);
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
  // the axes, ticks, labels and colour bar: drawn once per size and range, then copied
  const dpr = window.devicePixelRatio || 1;
  const sig = [W, H, dpr, x0, x1, y0, y1, font, d.xlabel, d.ylabel, d.clip, ox, oy, pw, ph,
               JSON.stringify(d.scale)].join("|");
  if (st.axesSig !== sig) {
    st.axesSig = sig;
    if (!st.axes) st.axes = document.createElement("canvas");
    st.axes.width = Math.round(W * dpr); st.axes.height = Math.round(H * dpr);
    const g = st.axes.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawAxes(g, d, {W, H, X, Y, ox, oy, pw, ph, padB, font, x0, x1, y0, y1});
  }
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(st.axes, 0, 0);
  ctx.restore();
  st.root.setAttribute("data-drawn", "1");
}

function showField(st, k) {                // the texts of the keyframe reached
  const d = k.d;
  setHTML(st.title, d.title + (d.note ? `<br><small>${d.note}</small>` : ""));
  styleTexts(st, d);
  st.root.setAttribute("data-t", d.t === undefined ? "" : d.t);
  st.root.setAttribute("data-seq", d.seq === undefined ? "" : d.seq);
  showTiles(d, !!k.exact);
  pendingDone(st, k);
  st.canvas.style.cursor = d.mode === "view" ? "default" : "crosshair";
  // a finger on the field edits it in the edit modes; elsewhere it scrolls the page
  st.canvas.style.touchAction = d.mode === "view" ? "auto" : "none";
}

// Where the pointer is on the field: data coordinates and the nearest point within 9 px
// (training points first, then test points, numbered after them).
function pick(st, ev) {
  const m = st.map, A = st.shown;
  const rect = st.canvas.getBoundingClientRect();
  const px = ev.clientX - rect.left, py = ev.clientY - rect.top;
  let best = -1, bd = 9 * 9;
  const scan = (P, off) => {
    for (let i = 0; i < P.length / 2; i++) {
      const dx = m.X(P[2 * i]) - px, dy = m.Y(P[2 * i + 1]) - py, q = dx * dx + dy * dy;
      if (q < bd) { bd = q; best = off + i; }
    }
  };
  scan(A.train, 0);
  scan(A.test, A.train.length / 2);
  return {px, py, x: m.x0 + (px - m.ox) / m.s, y: m.y1 - (py - m.oy) / m.s, index: best >= 0 ? best : null};
}

function editable(st) { return st.map && st.shown && st.shown.d.mode !== "view"; }

// An edit sent to the server is drawn at once, before the server's frame with the new data
// arrives (while playing, the keyframes already sent still play for up to a batch): an added
// point in its class colour with a dashed ring, a removed one crossed out, a dragged one at its
// new place. It goes when a frame with other data is shown, or after PENDING_MS. Until then
// the click is sent again every RESEND_MS: a script run that a rerun interrupts before it
// reads the click loses it, and the server applies a click once (its "n").
const PENDING_MS = 5000, RESEND_MS = 1500;

function sendEdit(st, click, edit) {
  st.setTrigger("click", click);
  st.pending = {...edit, data: st.shown.d.train + "|" + st.shown.d.test, at: performance.now()};
  const mine = st.pending;
  st.painted = null;
  paint(st);
  const resend = () => {
    if (st.pending !== mine) return;
    if (performance.now() - mine.at >= PENDING_MS) { st.pending = null; st.painted = null; paint(st); return; }
    st.setTrigger("click", click);
    setTimeout(resend, RESEND_MS);
  };
  setTimeout(resend, RESEND_MS);
}

function pendingDone(st, k) {              // a keyframe with the edited data is shown
  if (st.pending && (k.d.train + "|" + k.d.test !== st.pending.data
                     || performance.now() - st.pending.at >= PENDING_MS)) st.pending = null;
}

function drawPending(st, ctx, X, Y, col) {
  const e = st.pending;
  if (!e) return;
  const A = st.shown, nTrain = A.train.length / 2;
  const at = i => i < nTrain ? [X(A.train[2 * i]), Y(A.train[2 * i + 1])]
    : [X(A.test[2 * (i - nTrain)]), Y(A.test[2 * (i - nTrain) + 1])];
  const cross = (px, py) => {
    ctx.beginPath();
    ctx.moveTo(px - 6, py - 6); ctx.lineTo(px + 6, py + 6);
    ctx.moveTo(px + 6, py - 6); ctx.lineTo(px - 6, py + 6);
    ctx.lineWidth = 2.5; ctx.strokeStyle = "#111111"; ctx.stroke();
  };
  const dot = (px, py, c) => {
    ctx.beginPath();
    ctx.arc(px, py, 4.5, 0, 2 * Math.PI);
    ctx.fillStyle = c; ctx.fill();
    ctx.beginPath();
    ctx.arc(px, py, 9, 0, 2 * Math.PI);
    ctx.setLineDash([3, 3]); ctx.lineWidth = 1.5; ctx.strokeStyle = "#111111"; ctx.stroke();
    ctx.setLineDash([]);
  };
  if (e.kind === "add") dot(X(e.x), Y(e.y), col[e.cls]);
  else if (e.kind === "remove" && e.index < A.labels.length + A.tlabels.length) cross(...at(e.index));
  else if (e.kind === "move" && e.index < nTrain) {
    cross(...at(e.index));
    dot(X(e.x), Y(e.y), col[A.labels[e.index]]);
  }
}

function bindPointer(st) {
  // a press and release in place is a click (add, remove, inspect); a press on a training
  // point that moves is a drag: the point follows the pointer and its new place is sent
  const c = st.canvas;
  c.onpointerdown = (ev) => {
    if (!editable(st) || (ev.pointerType === "mouse" && ev.button !== 0)) return;
    const p = pick(st, ev);
    const nTrain = st.shown.train.length / 2;
    st.drag = {index: p.index !== null && p.index < nTrain && st.shown.d.mode !== "inspect"
      ? p.index : null, x0: p.px, y0: p.py, px: p.px, py: p.py, moved: false, down: p};
    c.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  };
  c.onpointermove = (ev) => {
    const g = st.drag;
    if (!g || g.index === null) return;
    const rect = c.getBoundingClientRect();
    g.px = ev.clientX - rect.left; g.py = ev.clientY - rect.top;
    if (Math.hypot(g.px - g.x0, g.py - g.y0) > 4) g.moved = true;
    if (g.moved) paint(st);
  };
  c.onpointerup = (ev) => {
    const g = st.drag;
    st.drag = null;
    if (!g || !editable(st)) return;
    const mode = st.shown.d.mode;
    if (g.moved) {
      const p = pick(st, ev);
      sendEdit(st, {move: g.index, x: p.x, y: p.y, index: g.index, n: Date.now()},
               {kind: "move", index: g.index, x: p.x, y: p.y});
      return;
    }
    const click = {x: g.down.x, y: g.down.y, index: g.down.index, n: Date.now()};
    if (mode === "add +1" || mode === "add −1")
      sendEdit(st, click, {kind: "add", x: g.down.x, y: g.down.y, cls: mode === "add +1" ? "1" : "-1"});
    else if (mode === "remove" && g.down.index !== null)
      sendEdit(st, click, {kind: "remove", index: g.down.index});
    else
      st.setTrigger("click", click);      // inspect, or a miss in remove mode: sent once
  };
  c.onpointercancel = () => { st.drag = null; st.painted = null; paint(st); };
}

function renderField(component) {
  const {data, parentElement, setTriggerValue, setStateValue} = component;
  const st = setup(parentElement, "svmc-field");
  st.setTrigger = setTriggerValue;
  st.setState = setStateValue;
  st.draw = () => drawField(st);
  if (!st.bound) { bindPointer(st); st.bound = true; }
  receive(st, data, keyframe, showField);
}

// ------------------------------------------------------------------------------------ digits
//
// A digits frame (a Digits run's replay) carries the images the run ever shows once ("atlas":
// side × side bytes of ink each) and per keyframe which of them are its support, in the order
// of |α| ("sv", with their classes in "sv_y"), which are its misclassified test images ("mis"),
// and a linear model's weights as field bytes ("w"). The view draws the sheets of the keyframe
// reached; a set of images does not blend, so nothing moves between two keyframes.

function atlasCanvas(d) {                  // one grey image per atlas entry, stacked
  return cached("atlas:" + d.atlas, () => {
    const ink = b64(d.atlas, Uint8Array), s = d.side, n = Math.floor(ink.length / (s * s));
    const c = document.createElement("canvas");
    c.width = s; c.height = Math.max(1, n * s);
    const g = c.getContext("2d"), img = g.createImageData(s, c.height);
    for (let i = 0; i < n * s * s; i++) {
      const v = 255 - ink[i];
      img.data[4 * i] = img.data[4 * i + 1] = img.data[4 * i + 2] = v;
      img.data[4 * i + 3] = 255;
    }
    g.putImageData(img, 0, 0);
    return c;
  });
}

function weightCanvas(d) {                 // the weights through the field's colour scale
  return cached("w:" + d.w, () => {
    const z = b64(d.w, Uint8Array), s = d.side, lut = colourTable(d.scale);
    const c = document.createElement("canvas");
    c.width = c.height = s;
    const g = c.getContext("2d"), img = g.createImageData(s, s);
    for (let i = 0; i < s * s; i++) {
      const v = z[i] === undefined ? 127 : z[i];
      img.data.set([lut[3 * v], lut[3 * v + 1], lut[3 * v + 2], 255], 4 * i);
    }
    g.putImageData(img, 0, 0);
    return c;
  });
}

function wrapText(ctx, text, width) {      // words to lines of at most width px
  const out = [];
  let line = "";
  for (const w of (text || "").split(" ")) {
    const next = line ? line + " " + w : w;
    if (line && ctx.measureText(next).width > width) { out.push(line); line = w; }
    else line = next;
  }
  if (line) out.push(line);
  return out;
}

function drawDigits(st) {
  const A = st.shown;
  if (!A) return;
  const d = A.d, font = fontOf(d, st), lh = Math.round(1.3 * font);
  const cols = d.cols || 12, [rowsSv, rowsMis] = d.rows || [1, 1];
  const W = Math.max(200, st.root.clientWidth);
  const probe = st.canvas.getContext("2d");
  probe.font = `${font}px sans-serif`;
  const texts = [d.sv_caption, d.mis_caption, d.w_caption].map(t => wrapText(probe, t, W - 4));
  const textH = texts.reduce((h, lines) => h + lines.length * lh + (lines.length ? 4 : 0), 0);
  const wantW = d.w ? Math.min(224, Math.max(160, 8 * d.side)) : 0;
  // a tile's pitch: the width's share, at most 10 px per image pixel; the sheets' rows are the
  // replay's most, so the layout does not jump between keyframes
  let cell = Math.max(8, Math.min(Math.floor(W / cols), 10 * d.side + 8));
  const need = c => textH + (rowsSv + rowsMis) * c + (d.w ? wantW + 8 : 0) + 12;
  const [ctx, , H] = sizeCanvas(st, Math.max(d.height || 440, need(cell)));
  if (need(cell) > H) cell = Math.max(6, Math.floor((H - textH - wantW - 20) / Math.max(1, rowsSv + rowsMis)));
  ctx.clearRect(0, 0, W, H);
  ctx.font = `${font}px sans-serif`;
  ctx.textBaseline = "top";
  const atlas = atlasCanvas(d), s = d.side;
  let y = 0;
  const caption = (lines) => {
    ctx.fillStyle = "#262730";
    for (const line of lines) { ctx.fillText(line, 2, y); y += lh; }
    if (lines.length) y += 4;
  };
  const sheet = (ids, frameOf, rows) => {
    const inner = Math.max(2, cell - 6);
    ctx.imageSmoothingEnabled = false;
    ids.forEach((id, k) => {
      const x = (k % cols) * cell, top = y + Math.floor(k / cols) * cell;
      ctx.fillStyle = frameOf(k);
      ctx.fillRect(x + 1, top + 1, cell - 2, cell - 2);
      ctx.drawImage(atlas, 0, id * s, s, s, x + 3, top + 3, inner, inner);
    });
    y += rows * cell + 8;
  };
  caption(texts[0]);
  sheet(d.sv || [], k => (d.sv_y || "")[k] === "-" ? d.colors.neg : d.colors.pos, rowsSv);
  caption(texts[1]);
  sheet(d.mis || [], () => d.colors.mis, rowsMis);
  if (d.w) {
    caption(texts[2]);
    const side = Math.max(s, Math.min(wantW, H - y - 4));
    ctx.drawImage(weightCanvas(d), 2, y, side, side);
  }
  st.root.setAttribute("data-tiles", (d.sv || []).length + (d.mis || []).length);
  st.root.setAttribute("data-drawn", "1");
}

function showDigits(st, k) {               // the texts of the keyframe reached
  const d = k.d;
  setHTML(st.title, d.title || "");
  styleTexts(st, d);
  st.root.setAttribute("data-t", d.t === undefined ? "" : d.t);
  st.root.setAttribute("data-seq", d.seq === undefined ? "" : d.seq);
  showTiles(d, !!k.exact);
}

function renderDigits(component) {
  const {data, parentElement} = component;
  const st = setup(parentElement, "svmc-digits");
  st.draw = () => drawDigits(st);
  receive(st, data, d => ({d, t: d.t}), showDigits);
}

// ------------------------------------------------------------------------------- playback
//
// While playing, the server sends a batch of keyframes ({keys: [...], dt}) about once a
// second; the view reaches keyframe i of a batch i·dt after the batch's start (its arrival,
// or the end of the batch before it) and blends the two keyframes around the present at every
// animation frame. A single frame (paused, +1, Step, an edit) is drawn at once, exactly. Pause,
// +1, Step and Space stop the motion in the browser at once on the keyframe the view is
// nearest to ("snap": "nearest") or on the newest ("last"), before the server answers with
// that state. A browser that cannot keep up skips animation frames, never keyframes.

const VIEWS = new Set();

// One clock for every view of the page. A keyframe is one moment of the session's run, named by
// the server ("seq"); the first view that receives it fixes when it is shown (the rule in
// `receive`, the only place the playback timing is decided) and every other view (the curves,
// a race's other fields) shows the same moment at that same time, in the same animation frame.
const CLOCK = window.__svmcClock || (window.__svmcClock = new Map());

function when(seq, at) {
  if (seq === undefined || seq === null) return at;
  let c = CLOCK.get(seq);
  if (!c) {
    c = {at, got: 0};
    CLOCK.set(seq, c);
    if (CLOCK.size > 600) CLOCK.delete(CLOCK.keys().next().value);
  }
  c.got += 1;
  return c.at;
}

// A moment is shown once every view that shows it ("views") has received it, so that no view
// shows a moment another one cannot show yet (a slow page gets the views' messages in
// separate renders); a view that misses a moment does not hold the others for long.
const WAIT_MS = 400;

function ready(q, now) {
  const d = q.k.d, c = d.seq === undefined ? null : CLOCK.get(d.seq);
  return !c || !d.views || c.got >= d.views || now > q.at + WAIT_MS;
}

// The tiles (Streamlit metrics in the containers the keyframe names) and captions (the race
// clock) show the numbers of the keyframe the field shows: while it plays, every keyframe
// writes its values into them, and a watcher writes them again at once when Streamlit redraws
// a tile with the server's value (a MutationObserver runs before the browser paints). Paused,
// the server's exact values stand (an exact frame carries the same numbers and ends the
// writing).
const TILES = window.__svmcTiles || (window.__svmcTiles = {on: null, boxes: new WeakSet()});

function firstText(el) {
  const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let n;
  while ((n = w.nextNode())) if (n.nodeValue.trim()) return n;
  return null;
}

function writeTiles(tl) {
  if (!tl) return;
  const want = new Map(tl.items || []);
  for (const key of tl.boxes || []) {
    for (const box of document.querySelectorAll(".st-key-" + key)) {
      if (!TILES.boxes.has(box)) {
        TILES.boxes.add(box);
        new MutationObserver(() => { if (TILES.on) writeTiles(TILES.on); })
          .observe(box, {subtree: true, childList: true, characterData: true});
      }
      box.setAttribute("data-svmc-seq", tl.seq === undefined ? "" : tl.seq);
      for (const m of box.querySelectorAll('[data-testid="stMetric"]')) {
        const l = m.querySelector('[data-testid="stMetricLabel"]');
        const v = m.querySelector('[data-testid="stMetricValue"]');
        const val = l && v ? want.get(l.textContent.trim()) : undefined;
        const n = val === undefined ? null : firstText(v);
        if (n && n.nodeValue !== val) n.nodeValue = val;
      }
      if (tl.caption !== undefined) {
        const c = box.querySelector('[data-testid="stCaptionContainer"]');
        const n = c ? firstText(c) : null;
        if (n && n.nodeValue !== tl.caption) n.nodeValue = tl.caption;
      }
    }
  }
}

function showTiles(d, exact) {             // the keyframe shown is this one
  if (!d.tiles) return;
  const tl = {...d.tiles, seq: d.seq};
  TILES.on = exact ? null : tl;
  writeTiles(tl);
}

// The buttons that stop the motion (Pause, +1, Step) are named by their widget keys in the
// frames; each gets a data attribute, which the press listener looks for.
const STOPS = window.__svmcStops || (window.__svmcStops = new Set());

function markStops(keys) {
  for (const k of keys || []) STOPS.add(k);
  for (const k of STOPS)
    for (const el of document.querySelectorAll(".st-key-" + k))
      if (!el.hasAttribute("data-svmc-stop")) el.setAttribute("data-svmc-stop", k);
}

// Draw the view when what it shows changed (a new keyframe, or the blend moved on); a trace's
// curves, whose blend only moves the tips, at most every CURVE_MS while they blend. A browser
// that renders in software (no GPU: its compositor copies every changed canvas on the CPU)
// blends on two animation frames of three; a new keyframe is always drawn at once.
const CURVE_MS = 50;
let SOFTWARE = null;

function softwareRendering() {
  if (SOFTWARE === null) {
    try {
      const gl = document.createElement("canvas").getContext("webgl");
      const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
      const name = gl ? String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER)) : "";
      SOFTWARE = !gl || /swiftshader|llvmpipe|softpipe|software/i.test(name);
      const lose = gl && gl.getExtension("WEBGL_lose_context");
      if (lose) lose.loseContext();
    } catch (e) {
      SOFTWARE = true;
    }
  }
  return SOFTWARE;
}

function paint(st, now) {
  if (!st.shown) return;
  const next = st.queue.length ? st.queue[0] : null;
  const moving = next && !next.same && st.mix > 0;
  const sig = st.frames + ":" + st.shown.t + ":" + (moving ? next.k.t + ":" + st.mix.toFixed(4) : "");
  if (sig === st.painted && !st.drag && !st.pending) return;
  const sameKey = st.painted && st.painted.startsWith(st.frames + ":" + st.shown.t + ":");
  const curves = st.root.classList.contains("svmc-curves");
  if (curves && moving && now !== undefined && st.paintedAt && sameKey
      && now - st.paintedAt < (softwareRendering() ? 2 : 1) * CURVE_MS) return;
  if (moving && sameKey && !st.drag && st.streak >= 2 && softwareRendering()) {
    st.streak = 0;                          // (software) this animation frame is skipped
    return;
  }
  st.streak = moving ? (st.streak || 0) + 1 : 0;
  st.painted = sig;
  st.paintedAt = now;
  st.draw();
  st.root.setAttribute("data-paints", ++st.paints);
}

function animate(st) {
  if (st.raf) return;
  st.root.setAttribute("data-playing", "1");
  const step = (now) => {
    st.raf = 0;
    if (!st.root.isConnected) { VIEWS.delete(st); return; }
    // the newest keyframe that is due: every view of the page reaches the same moment in the
    // same animation frame (their times are shared); a browser that falls behind skips what
    // it had no frame for, and stays on time
    let q = null;
    while (st.queue.length && st.queue[0].at <= now && ready(st.queue[0], now)) q = st.queue.shift();
    if (q) {
      st.from = q.at;
      st.shown = q.k;
      if (q.exact) q.k.exact = true;
      st.show(q.k);
    }
    if (st.queue.length) {
      const next = st.queue[0];
      st.mix = Math.min(1, Math.max(0, (now - st.from) / Math.max(1, next.at - st.from)));
      if (next.same) st.mix = 0;
      paint(st, now);
      st.raf = requestAnimationFrame(step);
    } else {
      st.mix = 0;
      paint(st, now);
      st.root.setAttribute("data-playing", "0");
    }
  };
  st.raf = requestAnimationFrame(step);
}

function freeze(st) {
  if (!st.queue.length) return;
  const next = st.queue[0];
  if (st.snap === "last") st.shown = st.queue[st.queue.length - 1].k;
  else if (st.mix >= 0.5) st.shown = next.k;
  st.queue = [];
  st.mix = 0;
  st.frozen = performance.now();
  st.show(st.shown);
  paint(st);
  // the server stops the run on this keyframe (a field view says which; the press follows)
  // (a state value, not a trigger: it stays in the session until the next stop, so the press's
  // callback reads it whichever of the two messages the server handles first)
  if (st.setState && st.shown.t !== undefined) st.setState("stop", {t: st.shown.t, n: Date.now()});
}

function receive(st, data, decode, show) {
  st.show = (k) => show(st, k);
  VIEWS.add(st);
  st.root.setAttribute("data-frames", ++st.frames);
  markStops(data.stops);
  const now = performance.now();
  if (data.keys && st.frozen && now - st.frozen < 2000) return;   // sent before the stop
  if (data.keys) {                          // a batch: play it after what is queued
    // The playback rule: after what is queued, the spacing stretched or shrunk by at most a
    // quarter so that about `buffer` seconds stay queued at the batch's end (the server's
    // jitter); a moment another view already placed keeps its time (`when`).
    let prev = st.queue.length ? st.queue[st.queue.length - 1].k : st.shown;
    const K = data.keys.length, dt = 1000 * (data.dt || 0.2), span = K * dt;
    let behind = st.queue.length ? Math.max(0, st.queue[st.queue.length - 1].at - now) : 0;
    if (behind > 2 * span) {                // far behind (a hidden tab): jump ahead
      if (st.queue.length) { st.shown = st.queue[st.queue.length - 1].k; st.show(st.shown); }
      st.queue = []; behind = 0;
    }
    const step = Math.min(1.25 * dt, Math.max(0.75 * dt, (span + 1000 * (data.buffer || 0) - behind) / K));
    const base = now + behind;
    if (!st.queue.length) st.from = now;
    let full = prev ? prev.d : null;
    for (let i = 0; i < data.keys.length; i++) {
      const d = i === 0 && !data.keys[0].kind && full ? {...full, ...data.keys[0]}
        : i === 0 ? data.keys[0] : {...full, ...data.keys[i]};
      full = d;
      const k = decode(d);
      st.keyframes = (st.keyframes || 0) + 1;
      const at = when(d.seq, base + (i + 1) * step);
      if (!st.shown) { st.shown = k; st.show(k); continue; }
      st.queue.push({k, at,
                     same: prev && (d.kind === "field" ? prev.d.z === d.z && prev.d.size === d.size
                                    && JSON.stringify(prev.d.tiles) === JSON.stringify(d.tiles)
                                    : d.kind === "digits" || !d.blend && prev.d.n === d.n)});
      prev = k;
    }
    st.queue.sort((p, q) => p.at - q.at);
    // until the first of them is due, the tiles stay on the keyframe shown
    if (st.shown && st.shown.d.tiles && !TILES.on) showTiles(st.shown.d, false);
    st.snap = data.snap || "nearest";
    st.frozen = 0;
    st.root.setAttribute("data-keyframes", st.keyframes);
    animate(st);
    return;
  }
  const k = decode(data);                   // one exact frame
  st.keyframes = (st.keyframes || 0) + 1;
  st.root.setAttribute("data-keyframes", st.keyframes);
  const last = st.queue.length ? st.queue[st.queue.length - 1] : null;
  if (last && !st.frozen && last.k.t === k.t) {
    last.k = k;                             // the run ended on the last keyframe: play on to it
    last.exact = true;
    return;
  }
  st.queue = [];
  st.mix = 0;
  st.frozen = 0;
  st.shown = k;
  k.exact = true;
  show(st, k);
  paint(st);
}

function editingTarget(el) {
  return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

if (!window.__svmcPauseHook) {             // one listener for every view of the page
  window.__svmcPauseHook = true;
  const freezeAll = () => { for (const st of VIEWS) freeze(st); };
  document.addEventListener("pointerdown", (ev) => {
    const b = ev.target && ev.target.closest ? ev.target.closest("button") : null;
    if (!b || b.disabled) return;
    markStops();                            // a button Streamlit drew since the last frame
    if (b.closest("[data-svmc-stop]")) freezeAll();
  }, true);
  document.addEventListener("keydown", (ev) => {
    if (editingTarget(ev.target) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.code === "Space" || ev.key === "ArrowRight") {
      for (const st of VIEWS) if (st.queue.length) { freezeAll(); break; }
    }
  }, true);
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
  const A = st.shown;
  if (!A) return;
  // A trace while playing: the points up to the keyframe reached, and the segment towards the
  // next keyframe's points drawn as far as the blend has come (its dots appear when reached);
  // the next keyframe's trace holds the reached one's as its beginning. A frame marked "blend"
  // (a fitted function) moves each value from one keyframe to the next instead.
  const B = st.queue.length ? st.queue[0].k : null;
  const grows = B && A.n !== undefined && B.n !== undefined;
  const d = grows ? B.d : A.d;
  const shown = grows ? A.n + st.mix * (B.n - A.n) : A.n === undefined ? Infinity : A.n;
  const mixY = (p, k, s) => {               // the series' y values, blended when both have them
    if (!(B && d.blend && st.mix > 0)) return s._y;
    const o = B.d.panels[p] && B.d.panels[p].series[k];
    if (!o) return s._y;
    if (!o._y) { o._x = b64(o.x, Float32Array); o._y = b64(o.y, Float32Array); }
    if (o._y.length !== s._y.length) return s._y;
    const out = new Float32Array(s._y.length);
    for (let i = 0; i < out.length; i++) out[i] = s._y[i] + st.mix * (o._y[i] - s._y[i]);
    return out;
  };
  const font = fontOf(d);
  const [ctx, W, H] = sizeCanvas(st, d.height);
  ctx.clearRect(0, 0, W, H);
  const n = d.panels.length, cols = panelColumns(n, d.cols, H, font), rows = Math.ceil(n / cols);
  // every column keeps the left pad its y labels need (a narrower gap put a panel's labels
  // over its left neighbour)
  const gapY = 2.2 * font, padL = 4.2 * font, gapX = padL, padB = 2.8 * font;
  const cw = (W - padL - gapX * (cols - 1) - 8) / cols;
  const ch = (H - padB - gapY * rows) / rows;
  const lx = v => Math.log10(v);
  ctx.font = `${font}px sans-serif`;
  d.panels.forEach((p, k) => {
    const r = Math.floor(k / cols), c = k % cols;
    const ox = padL + c * (cw + gapX), oy = gapY * (r + 1) + r * ch;
    let xs = [], ys = [];
    for (const s of p.series) {
      if (!s._x) { s._x = b64(s.x, Float32Array); s._y = b64(s.y, Float32Array); }
      const X = s._x, Y = mixY(k, p.series.indexOf(s), s);
      s._ym = Y;
      for (let i = 0; i < Math.min(X.length, Math.ceil(shown)); i++) {
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
    if (!xs.length) {                      // nothing yet: say what starts the curves
      ctx.fillStyle = "#777"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.fillText(fitText(ctx, d.empty || "press Play (Space)", cw - font), ox + cw / 2, oy + ch / 2);
      return;
    }
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
    // mid-run changes: a dashed line each; their labels on up to three rows, each label where
    // it overlaps no other, and the labels that find no room counted on the last one placed
    const lanes = Math.max(1, Math.min(3, Math.floor((ch - 4) / (font + 2))));
    const ends = new Array(lanes).fill(-Infinity), placed = [];
    let extra = 0;
    const ms = (d.marks || []).map(m => ({m, v: d.log_x ? (m.x > 0 ? lx(m.x) : null) : m.x}))
      .filter(o => o.v !== null && o.v >= xa && o.v <= xb).sort((a, b) => a.v - b.v);
    for (const {m, v} of ms) {
      ctx.strokeStyle = "#7a7a7a"; ctx.setLineDash([3, 3]);
      ctx.beginPath(); ctx.moveTo(PX(v), oy); ctx.lineTo(PX(v), oy + ch); ctx.stroke();
      ctx.setLineDash([]);
      // inside the panel: left of the line when the right side has no room
      const w = ctx.measureText(m.label).width;
      const right = PX(v) + 3 + w <= ox + cw;
      const x0 = right ? PX(v) + 3 : PX(v) - 3 - w;
      const r = ends.findIndex(e => e + 4 <= x0);
      if (r < 0) { extra += 1; continue; }
      ends[r] = x0 + w + ctx.measureText(" (+9)").width;   // room for a count of the hidden
      placed.push({label: m.label, x0, r, extra: 0});
      if (extra && placed.length > 1) { placed[placed.length - 2].extra += extra; extra = 0; }
    }
    if (extra && placed.length) placed[placed.length - 1].extra += extra;
    ctx.fillStyle = "#555"; ctx.textAlign = "left"; ctx.textBaseline = "top";
    for (const p of placed)
      ctx.fillText(p.label + (p.extra ? ` (+${p.extra})` : ""), p.x0, oy + 2 + p.r * (font + 2));
    st.root.setAttribute("data-marks", placed.length + ":" + ms.length);
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
      const X = s._x, Y = s._ym || s._y, pts = [];
      const whole = Math.min(X.length, Math.floor(shown)), part = shown - Math.floor(shown);
      let tip = null;
      for (let i = 0; i < Math.min(X.length, whole + 1); i++) {
        const ok = isFinite(X[i]) && isFinite(Y[i]) && (!d.log_x || X[i] > 0) && (!p.log_y || Y[i] > 0);
        if (!ok) { pen = false; tip = null; continue; }
        const a = PX(d.log_x ? lx(X[i]) : X[i]), b = PY(p.log_y ? lx(Y[i]) : Y[i]);
        if (i === whole) {                    // the next keyframe's point: the tween's tip
          if (tip && part > 0) ctx.lineTo(tip[0] + part * (a - tip[0]), tip[1] + part * (b - tip[1]));
          break;
        }
        if (pen) ctx.lineTo(a, b); else { ctx.moveTo(a, b); pen = true; }
        pts.push([a, b]);
        tip = [a, b];
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

function showCurves(st, k) {
  const d = k.d;
  if (st.title.textContent !== (d.title || "")) st.title.textContent = d.title || "";
  styleTexts(st, d);
  st.root.setAttribute("data-panels", d.panels.map(p => p.title).join(" | "));
  st.root.setAttribute("data-t", d.t === undefined ? "" : d.t);
  st.root.setAttribute("data-seq", d.seq === undefined ? "" : d.seq);
  st.canvas.title = d.panels.map(p => p.title).join("\n");   // titles cut to their panel
}

function renderCurves(component) {
  const {data, parentElement} = component;
  const st = setup(parentElement, "svmc-curves");
  st.draw = () => drawCurves(st);
  receive(st, data, d => ({d, t: d.t, n: d.n}), showCurves);
}

export default function (component) {
  const raw = component.data;                // {frame: "<json>"}: see canvas.py
  const data = raw && typeof raw.frame === "string" ? JSON.parse(raw.frame) : raw;
  if (!data) return;
  const kind = data.kind || (data.keys && data.keys[0] && data.keys[0].kind);
  if (kind === "curves") renderCurves({...component, data});
  else if (kind === "digits") renderDigits({...component, data});
  else renderField({...component, data});
}
