// A sheet of image tiles (one PNG, svmcore.viz.digits.sprite_sheet) in a keyed view: the image
// is swapped in place frame after frame, and a click on a tile comes back as {index, n}.
export default function (component) {
  const {data, parentElement, setTriggerValue} = component;
  if (!data) return;
  let box = parentElement.querySelector(".svmc-tiles");
  if (!box) {
    box = document.createElement("div");
    box.className = "svmc-tiles";
    box.innerHTML = '<div class="svmc-tiles-title"></div><img alt="" draggable="false">';
    parentElement.appendChild(box);
    box.querySelector("img").addEventListener("click", ev => {
      const lay = box.__layout, img = ev.currentTarget;
      if (!lay || !lay.n || !img.naturalWidth) return;
      const r = img.getBoundingClientRect();
      const px = (ev.clientX - r.left) * img.naturalWidth / r.width;
      const py = (ev.clientY - r.top) * img.naturalHeight / r.height;
      const k = Math.floor(py / lay.cell) * lay.cols + Math.floor(px / lay.cell);
      if (k >= 0 && k < lay.n) setTriggerValue("click", {index: k, n: Date.now()});
    });
  }
  const title = box.querySelector(".svmc-tiles-title");
  if (title.textContent !== (data.title || "")) title.textContent = data.title || "";
  box.__layout = data.layout;
  const img = box.querySelector("img");
  img.style.cursor = data.layout && data.layout.n ? "pointer" : "default";
  img.style.width = data.width ? data.width + "px" : "";
  if (data.src && img.getAttribute("src") !== data.src) img.setAttribute("src", data.src);
  img.style.display = data.src ? "block" : "none";
  box.setAttribute("data-tiles", String(data.layout ? data.layout.n : 0));
}
