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
  gd.style.height = (fig.layout && fig.layout.height ? fig.layout.height : 480) + "px";
  const draw = () => {
    const next = fig;
    gd.__svmcNext = next;
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
