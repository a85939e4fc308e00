// The 3-D view's plot: one plotly.js graph per keyed component, updated in place with
// Plotly.react on every figure (the scene's uirevision keeps the camera the user turned).
// plotly.js is loaded once per page from the app server (svmcore.server.assets).
export default function (component) {
  const {data, parentElement} = component;
  const fig = data && data.figure ? JSON.parse(data.figure) : null;
  if (!fig) return;
  let gd = parentElement.querySelector(".svmc-view3d");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "svmc-view3d";
    parentElement.appendChild(gd);
  }
  const asked = fig.layout && fig.layout.height ? fig.layout.height : 480;
  // projector mode (data.fit): the figure ends at the window's bottom, as the 2-D field does,
  // whatever the lesson bar and the toolbar above it take
  const height = () => data.fit
    ? Math.max(320, Math.floor(window.innerHeight - gd.getBoundingClientRect().top - 10))
    : asked;
  gd.style.height = height() + "px";
  if (data.fit && !gd.__svmcFit) {           // redraw at the new height when the window is
    gd.__svmcFit = true;                     // resized or the content above the figure moves
    const again = () => requestAnimationFrame(() => gd.__svmcRedraw && gd.__svmcRedraw());
    window.addEventListener("resize", again);
    const block = gd.closest(".block-container, [data-testid='stMainBlockContainer']");
    if (block) new ResizeObserver(again).observe(block);
  }
  const draw = () => {
    if (!window.Plotly) return;              // drawn once plotly.js has loaded
    const h = height();
    if (data.fit && gd.__svmcHeight === h && gd.__svmcDrawn === fig) return;  // nothing moved
    gd.__svmcHeight = h;
    gd.__svmcDrawn = fig;
    gd.style.height = h + "px";
    gd.__svmcNext = data.fit ? {...fig, layout: {...fig.layout, height: h}} : fig;
    if (gd.__svmcBusy) return;               // the newest figure is drawn when this one ends
    gd.__svmcBusy = true;
    const step = () => {
      const f = gd.__svmcNext;
      gd.__svmcNext = null;
      Promise.resolve(window.Plotly.react(gd, f.data, f.layout,
                                          {displaylogo: false, responsive: true}))
        .catch(() => {})
        .then(() => {
          gd.setAttribute("data-drawn", String(Date.now()));
          if (gd.__svmcNext) step(); else gd.__svmcBusy = false;
        });
    };
    step();
  };
  gd.__svmcRedraw = () => draw();
  if (window.Plotly) { draw(); return; }
  if (!window.__svmcPlotly) {
    window.__svmcPlotly = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = data.src;
      s.onload = resolve;
      s.onerror = reject;
      document.head.appendChild(s);
    });
  }
  window.__svmcPlotly.then(draw, () => {
    gd.textContent = "plotly.js could not be loaded from " + data.src;
  });
}
