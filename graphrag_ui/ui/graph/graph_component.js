// The clickable graph (Streamlit components v2, inline). Every text it shows comes from Python in
// data.text, already in the UI language; everything from the index is set with textContent or handed
// to vis.DataSet as data (vis draws labels on the canvas and string tooltips as text).
//
// The view (zoom and pan) outlives reruns: it is saved per data.viewKey (the panel, the index and the
// question) on every zoom or pan, in this page and in sessionStorage, and restored when the component
// is drawn again, e.g. after a slider move redrew the page or a tab switch unmounted the graph.
const VIEWS = "__graphragGraphViews";

function views() {
  if (!window[VIEWS]) { window[VIEWS] = {}; }
  return window[VIEWS];
}

function savedView(key) {
  if (views()[key]) { return views()[key]; }
  try {
    const raw = window.sessionStorage.getItem("graphrag-view:" + key);
    return raw ? JSON.parse(raw) : null;
  } catch (e) {
    return null;
  }
}

function saveView(box) {
  const network = box.__network;
  if (!network || !box.dataset.viewKey) { return; }
  const view = { scale: network.getScale(), position: network.getViewPosition() };
  views()[box.dataset.viewKey] = view;
  try { window.sessionStorage.setItem("graphrag-view:" + box.dataset.viewKey, JSON.stringify(view)); } catch (e) { /* private mode */ }
}

function defaultView(box, data) {
  // fit the nodes that matter (the retrieved ones, the searched one), but never so far out that labels
  // become unreadable (then centre on the searched entity, or on the middle of the retrieved ones),
  // nor so close that a three-node graph fills the screen
  const network = box.__network;
  const focus = (data.focus || []).filter((id) => box.__nodes.get(id));
  network.fit({ nodes: focus.length ? focus : box.__nodes.getIds(), animation: false });
  const scale = network.getScale();
  if (scale >= data.minScale && scale <= data.maxScale) { return; }
  let position = network.getViewPosition();
  if (scale < data.minScale && focus.length) {
    const at = network.getPositions(data.anchor && box.__nodes.get(data.anchor) ? [data.anchor] : focus);
    const points = Object.values(at);
    position = {
      x: points.reduce((sum, p) => sum + p.x, 0) / points.length,
      y: points.reduce((sum, p) => sum + p.y, 0) / points.length,
    };
  }
  network.moveTo({ position: position, scale: Math.min(Math.max(scale, data.minScale), data.maxScale), animation: false });
}

function showView(box, data) {
  const view = savedView(data.viewKey);
  if (view) {
    box.__network.moveTo({ position: view.position, scale: view.scale, animation: false });
  } else {
    defaultView(box, data);
    box.__refit = true;  // once drawn, again: vis measures the labels only when it first paints them
  }
  box.dataset.viewKey = data.viewKey;
  saveView(box);  // what the analyst sees now is what a remount shows again
}

function drawLegend(root, data) {
  const legend = root.querySelector(".legend");
  legend.replaceChildren();
  for (const row of data.legend) {
    const item = document.createElement("span");
    const chip = document.createElement("span");
    chip.className = "chip";
    chip.style.background = row.colour;
    item.appendChild(chip);
    item.appendChild(document.createTextNode(row.text));
    legend.appendChild(item);
  }
  const keys = root.querySelector(".keys");
  keys.textContent = [...data.keys, data.text.hint].join(" · ");
}

function exportPng(box, data) {
  const source = box.querySelector("canvas");
  if (!source) { return; }
  const out = document.createElement("canvas");
  out.width = source.width;
  out.height = source.height;
  const ctx = out.getContext("2d");
  ctx.fillStyle = data.background;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(source, 0, 0);
  const link = document.createElement("a");
  link.href = out.toDataURL("image/png");  // a data: URL, made here: nothing is fetched
  link.download = data.pngName;
  box.appendChild(link);
  link.click();
  link.remove();
}

function fitHeight(root, box, data) {
  const wrap = root.querySelector(".wrap");
  const full = root.fullscreenElement === wrap || document.fullscreenElement === wrap;
  const other = root.querySelector(".bar").offsetHeight + root.querySelector(".foot").offsetHeight;
  const height = full ? Math.max(window.innerHeight - other - 4, 200) : data.height;
  root.querySelector("[data-act=fs]").textContent = full ? data.text.exitFullscreen : data.text.fullscreen;
  if (box.style.height === height + "px") { return; }
  box.style.height = height + "px";
  const network = box.__network;
  if (!network) { return; }
  // entering fullscreen: the whole drawing; leaving it: back to the analyst's view, as the button saw
  // it just before the switch (during the switch the canvas and the camera disagree)
  network.setSize("100%", height + "px");
  if (full && !box.__inFullscreen) {
    box.__inFullscreen = true;
    afterResize(box, () => defaultView(box, { ...data, focus: [], minScale: data.minScale * 0.8 }));
  } else if (!full && box.__inFullscreen) {
    box.__inFullscreen = false;
    const before = box.__beforeFullscreen;
    box.__beforeFullscreen = null;
    if (before) { afterResize(box, () => network.moveTo({ ...before, animation: false })); }
  }
}

function afterResize(box, then) {
  // vis rescales the camera after each resize of its canvas (and the fullscreen switch resizes it in
  // steps): apply the view after every such resize for a moment, and once more at the end
  const apply = () => { then(); saveView(box); };
  box.__afterResize = apply;
  clearTimeout(box.__afterResizeTimer);
  box.__afterResizeTimer = setTimeout(() => { box.__afterResize = null; apply(); }, 600);
}

function wire(root, box) {
  // buttons and events once per mounted element; they read the latest data from box.__data
  const wrap = root.querySelector(".wrap");
  root.querySelector("[data-act=fit]").onclick = () => { defaultView(box, box.__data); saveView(box); };
  root.querySelector("[data-act=png]").onclick = () => exportPng(box, box.__data);
  root.querySelector("[data-act=fs]").onclick = () => {
    if (root.fullscreenElement === wrap || document.fullscreenElement === wrap) {
      document.exitFullscreen();
    } else if (wrap.requestFullscreen) {
      const network = box.__network;
      box.__beforeFullscreen = network ? { position: network.getViewPosition(), scale: network.getScale() } : null;
      wrap.requestFullscreen();
    }
  };
  wrap.addEventListener("fullscreenchange", () => fitHeight(root, box, box.__data));
}

function build(box, data) {
  box.__nodes = new window.vis.DataSet(data.nodes);
  box.__edges = new window.vis.DataSet(data.edges);
  const network = new window.vis.Network(box, { nodes: box.__nodes, edges: box.__edges }, data.options);
  box.__network = network;
  box.__options = JSON.stringify(data.options);
  network.on("resize", () => setTimeout(() => { if (box.__afterResize) { box.__afterResize(); } }, 0));
  let clickTimer = null;
  network.on("click", (params) => {
    if (!params.nodes || !params.nodes.length) { return; }
    const id = params.nodes[0];
    clearTimeout(clickTimer);
    // a double click also fires two clicks: wait a moment so it is one expansion, not two selections
    clickTimer = setTimeout(() => box.__trigger("node_click", id), 250);
  });
  network.on("doubleClick", (params) => {
    clearTimeout(clickTimer);
    if (params.nodes && params.nodes.length) { box.__trigger("node_expand", params.nodes[0]); }
  });
  const userMoved = () => { box.__afterResize = null; clearTimeout(box.__afterResizeTimer); };  // the analyst wins
  network.on("zoom", () => { userMoved(); saveView(box); });
  network.on("dragStart", userMoved);
  network.on("dragEnd", (params) => { if (!params.nodes || !params.nodes.length) { saveView(box); } });
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data || !data.nodes) { return; }
  const root = parentElement;
  const box = root.querySelector(".net");
  box.__trigger = setTriggerValue;
  if (!window.vis) {
    if (!data.vislib) {  // sent once per session: this page does not have it (yet), ask again
      setTriggerValue("need_vislib", String(Date.now()));
      return;
    }
    const script = document.createElement("script");
    script.textContent = data.vislib;  // vis-network from pyvis's wheel, inlined: never a URL
    document.head.appendChild(script);
  }
  box.__data = data;
  for (const button of root.querySelectorAll("button[data-act]")) {
    button.textContent = data.text[button.dataset.act];
  }
  if (box.dataset.sig === data.sig && box.__network) { return; }  // same graph: nothing to redraw
  box.dataset.sig = data.sig;
  delete box.dataset.painted;
  const status = root.querySelector(".status");
  drawLegend(root, data);
  status.textContent = data.nodes.length ? data.text.drawing : data.text.empty;
  const started = performance.now();
  const fresh = !box.__network;
  if (fresh) {
    wire(root, box);
    box.style.height = data.height + "px";
    build(box, data);
  } else {
    // the same element, new data (a slider moved, a filter, an expansion): swap the data in place,
    // so the camera stays where the analyst left it
    if (box.__options !== JSON.stringify(data.options)) {
      box.__network.setOptions(data.options);
      box.__options = JSON.stringify(data.options);
    }
    box.__edges.clear();
    box.__nodes.clear();
    box.__nodes.add(data.nodes);
    box.__edges.add(data.edges);
  }
  fitHeight(root, box, data);
  if (fresh || box.dataset.viewKey !== data.viewKey) { showView(box, data); }
  box.__network.once("afterDrawing", () => {
    if (box.__refit) {  // the default view with every label's width known: none is cut at an edge
      box.__refit = false;
      defaultView(box, data);
      saveView(box);
    }
    box.dataset.painted = String(performance.now() - started);
    if (data.nodes.length) { status.textContent = ""; }
  });
  box.__network.redraw();
}
