// Priora's HTML report (priora.pictures.html_report): the Gantt chart, drawn as SVG
// from the page's JSON (<script id="priora-data">), inlined into every page.
// One row per task, most urgent at the top, drawn like the PNG chart
// (priora.pictures.gantt). The view is a time range [t0, t1]: the wheel zooms it
// around the pointer, a drag pans it, "Reset zoom" shows the whole run. Each
// change redraws only what the range shows; the <svg> carries the range in
// data-t0 and data-t1.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("priora-data").textContent);
  const holder = document.getElementById("gantt");
  const rangeText = document.getElementById("range");
  const ROW = 44; // px per task
  const BAR = 0.44, BAND = 0.74, ARROW = 0.46, STRIP = 0.08; // fractions of ROW, as in the PNG
  const LEFT = 150, RIGHT = 16, TOP = 26, BOTTOM = 6;
  const end = data.end > 0 ? data.end : 1;
  const minSpan = end / 1e5; // zooming further shows nothing more
  let view = { t0: 0, t1: end };
  let plotWidth = 600;

  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function titled(node, text) {
    el("title", {}, node, text);
    return node;
  }

  function fmt(t) {
    return String(Number(t.toPrecision(10)));
  }

  function x(t) {
    return LEFT + ((t - view.t0) / (view.t1 - view.t0)) * plotWidth;
  }

  function timeAt(px) {
    return view.t0 + ((px - LEFT) / plotWidth) * (view.t1 - view.t0);
  }

  function shows(start, stop) {
    return stop > view.t0 && start < view.t1;
  }

  function showsAt(t) {
    return t >= view.t0 && t <= view.t1;
  }

  // A bar from start to stop, cut to the plot (so that a deep zoom keeps small coordinates).
  function bar(parent, start, stop, top, height, attrs, tip) {
    const left = Math.max(x(start), LEFT - 2);
    const right = Math.min(x(stop), LEFT + plotWidth + 2);
    const r = el("rect", Object.assign({ x: left, y: top, width: Math.max(right - left, 0.5), height: height }, attrs), parent);
    return titled(r, tip);
  }

  function span(s, e) {
    return `${fmt(s)} to ${fmt(e)} ${data.unit}`;
  }

  function defs(svg, height) {
    const d = el("defs", {}, svg);
    const clip = el("clipPath", { id: "plot-clip" }, d);
    el("rect", { x: LEFT - 6, y: 0, width: plotWidth + 12, height: height }, clip); // room for a marker at either end
    data.resources.forEach((r, i) => {
      for (const [id, line] of [[`hatch-${i}`, "M0,8 L8,0"], [`ceiling-${i}`, "M0,0 L8,8"]]) {
        const p = el("pattern", { id: id, width: 6, height: 6, patternUnits: "userSpaceOnUse", viewBox: "0 0 8 8" }, d);
        el("rect", { width: 8, height: 8, fill: "white" }, p);
        el("path", { d: line, stroke: r.colour, "stroke-width": 1.4 }, p);
      }
    });
    const lost = el("pattern", { id: "lost", width: 6, height: 6, patternUnits: "userSpaceOnUse", viewBox: "0 0 8 8" }, d);
    el("path", { d: "M0,0 L8,8 M0,8 L8,0", stroke: "black", "stroke-width": 1 }, lost);
    const dots = el("pattern", { id: "recovery", width: 5, height: 5, patternUnits: "userSpaceOnUse" }, d);
    el("circle", { cx: 2.5, cy: 2.5, r: 0.9, fill: "black" }, dots);
  }

  function niceStep(rough) {
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
    return 10 * power;
  }

  function axis(svg, height) {
    const g = el("g", { class: "axis" }, svg);
    const step = niceStep((view.t1 - view.t0) / Math.max(plotWidth / 90, 1));
    const decimals = Math.max(0, -Math.floor(Math.log10(step)));
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1 + step * 1e-9; t += step) {
      const px = x(t);
      el("line", { class: "grid", x1: px, x2: px, y1: TOP - 4, y2: height - BOTTOM }, g);
      el("text", { class: "tick", x: px, y: TOP - 8, "text-anchor": "middle" }, g, t.toFixed(Math.min(decimals, 12)));
    }
    el("text", { x: LEFT - 8, y: TOP - 8, "text-anchor": "end" }, g, `time (${data.unit})`);
  }

  function arrow(g, t, yFrom, yTo, colour, css, tip) {
    const a = el("g", { class: css }, g);
    const px = x(t), dir = yTo > yFrom ? 1 : -1;
    el("line", { x1: px, x2: px, y1: yFrom, y2: yTo - 5 * dir, stroke: colour, "stroke-width": 1.2 }, a);
    el("path", { d: `M${px - 3.5},${yTo - 6 * dir} L${px + 3.5},${yTo - 6 * dir} L${px},${yTo} Z`, fill: colour }, a);
    titled(a, tip);
  }

  function row(svg, task, index) {
    const top = TOP + index * ROW, mid = top + ROW / 2;
    const barTop = mid - (BAR * ROW) / 2, barHeight = BAR * ROW;
    el("text", { class: "label", x: LEFT - 8, y: mid + 4, "text-anchor": "end" }, svg, `${task.name}  (${task.band})`);
    const g = el("g", { class: "row", "data-task": task.name, "clip-path": "url(#plot-clip)" }, svg);
    const colour = (i) => data.resources[i].colour;
    const name = (i) => data.resources[i].name;
    for (const [s, e, r] of task.holds) {
      if (shows(s, e)) bar(g, s, e, mid - (BAND * ROW) / 2, BAND * ROW, { class: "hold", fill: colour(r), "fill-opacity": 0.3 }, `${task.name} holds ${name(r)}: ${span(s, e)}`);
    }
    for (const [s, e, r, timedOut, ceiling] of task.blocked) {
      if (!shows(s, e)) continue;
      const attrs = { class: "blocked", fill: `url(#${ceiling ? "ceiling" : "hatch"}-${r})`, stroke: colour(r), "stroke-width": 1 };
      if (timedOut) attrs["stroke-dasharray"] = "4 3";
      const why = ceiling ? `the system ceiling (pcp), ${name(r)}` : name(r);
      bar(g, s, e, barTop, barHeight, attrs, `${task.name} blocked on ${why}: ${span(s, e)}${timedOut ? " (timed out)" : ""}`);
    }
    for (const [s, e] of task.runs) {
      if (shows(s, e)) bar(g, s, e, barTop, barHeight, { class: "run", fill: data.colours.run }, `${task.name} runs: ${span(s, e)}`);
    }
    for (const [s, e, r, kind] of task.inside) {
      if (!shows(s, e)) continue;
      const what = kind === "lost" ? "work lost (section aborted)" : kind === "recovery" ? "recovers" : "runs";
      bar(g, s, e, barTop, barHeight, { class: "inside", fill: colour(r) }, `${task.name} ${what} holding ${name(r)}: ${span(s, e)}`);
      if (kind) bar(g, s, e, barTop, barHeight, { class: kind, fill: `url(#${kind})` }, `${task.name} ${what}: ${span(s, e)}`);
    }
    for (const [t, r, by] of task.aborts) {
      if (!showsAt(t)) continue;
      const px = x(t), py = barTop;
      titled(el("path", { class: "abort", d: `M${px - 4},${py - 4} L${px + 4},${py + 4} M${px - 4},${py + 4} L${px + 4},${py - 4}`, stroke: "black", "stroke-width": 2.2 }, g), `${task.name}'s section on ${name(r)} aborted by ${by} at ${fmt(t)} ${data.unit}`);
    }
    const boostY = barTop - 5;
    for (const [s, e, p, ceiling] of task.boosts) {
      if (!shows(s, e)) continue;
      const b = el("g", { class: "boost" }, g);
      const x1 = Math.max(x(s), LEFT - 2), x2 = Math.min(x(e), LEFT + plotWidth + 2);
      const line = { x1: x1, x2: x2, y1: boostY, y2: boostY, stroke: "black", "stroke-width": 1.3 };
      if (ceiling) line["stroke-dasharray"] = "5 3";
      el("line", line, b);
      el("text", { class: "boost-label", x: (x1 + x2) / 2, y: boostY - 3, "text-anchor": "middle" }, b, `p${p}`);
      titled(b, `${task.name} at priority ${p} (${ceiling ? "ceiling from the lock on" : "inherited"}): ${span(s, e)}`);
    }
    for (const [t, job] of task.releases) {
      if (showsAt(t)) arrow(g, t, mid + ARROW * ROW, mid - ARROW * ROW, "black", "release", `${task.name} job ${job} released at ${fmt(t)} ${data.unit}`);
    }
    for (const [t, job, missed] of task.deadlines) {
      if (!showsAt(t)) continue;
      const tip = `${task.name} job ${job}: deadline ${fmt(t)} ${data.unit}${missed ? " (missed)" : ""}`;
      arrow(g, t, mid - ARROW * ROW, mid + ARROW * ROW, missed ? data.colours.miss : "black", missed ? "deadline missed" : "deadline", tip);
    }
    const stripTop = barTop + barHeight + 2;
    for (const [t, s, e] of task.misses) {
      if (shows(s, e)) bar(g, s, e, stripTop, STRIP * ROW, { class: "overrun", fill: data.colours.miss }, `${task.name} late: ${span(s, e)}`);
      if (!showsAt(t)) continue;
      const px = x(t), py = stripTop;
      titled(el("path", { class: "miss", d: `M${px - 4},${py - 4} L${px + 4},${py + 4} M${px - 4},${py + 4} L${px + 4},${py - 4}`, stroke: data.colours.miss, "stroke-width": 2 }, g), `${task.name} missed its deadline at ${fmt(t)} ${data.unit}`);
    }
    for (const [t, error, action] of task.refusals) {
      if (!showsAt(t)) continue;
      const px = x(t);
      const f = el("g", { class: "refusal" }, g);
      el("path", { d: `M${px},${mid - 6} L${px + 6},${mid} L${px},${mid + 6} L${px - 6},${mid} Z`, fill: data.colours.refusal, stroke: "black" }, f);
      el("text", { x: px, y: stripTop + 10, "text-anchor": "middle", "font-weight": "bold" }, f, error);
      titled(f, `${task.name}: "${action}" refused with ${error} at ${fmt(t)} ${data.unit}`);
    }
  }

  function render() {
    plotWidth = Math.max(300, holder.clientWidth - LEFT - RIGHT);
    const height = TOP + data.tasks.length * ROW + BOTTOM;
    const svg = el("svg", { width: LEFT + plotWidth + RIGHT, height: height, "data-t0": view.t0, "data-t1": view.t1, role: "img" });
    titled(svg, data.title);
    defs(svg, height);
    axis(svg, height);
    data.tasks.forEach((task, i) => row(svg, task, i));
    el("rect", { class: "frame", x: LEFT, y: TOP - 4, width: plotWidth, height: height - TOP + 4 - BOTTOM, fill: "none", stroke: "#999" }, svg);
    holder.replaceChildren(svg);
    rangeText.textContent = `${fmt(view.t0)} to ${fmt(view.t1)} ${data.unit}`;
  }

  // The range [t0, t1] moved back inside the run, no narrower than minSpan.
  function setView(t0, t1) {
    let width = Math.min(Math.max(t1 - t0, minSpan), end);
    t0 = Math.min(Math.max(t0, 0), end - width);
    view = { t0: t0, t1: t0 + width };
    render();
  }

  holder.addEventListener("wheel", (e) => {
    e.preventDefault();
    const box = holder.firstElementChild.getBoundingClientRect(); // the svg, inside the border
    const at = Math.min(Math.max(timeAt(e.clientX - box.left), view.t0), view.t1);
    // Pixels, lines or pages; a notch (about 100 px) zooms by 2, no event by more.
    const pixels = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1);
    const factor = Math.pow(2, Math.min(Math.max(pixels / 100, -1), 1));
    const width = Math.min(Math.max((view.t1 - view.t0) * factor, minSpan), end);
    const share = (at - view.t0) / (view.t1 - view.t0);
    setView(at - share * width, at + (1 - share) * width);
  }, { passive: false });

  let drag = null;
  holder.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    holder.focus();
    drag = { x: e.clientX, t0: view.t0, t1: view.t1 };
    holder.setPointerCapture(e.pointerId);
    holder.classList.add("dragging");
  });
  holder.addEventListener("pointermove", (e) => {
    if (drag === null) return;
    const shift = ((drag.x - e.clientX) / plotWidth) * (drag.t1 - drag.t0);
    setView(drag.t0 + shift, drag.t1 + shift);
  });
  const stop = () => {
    drag = null;
    holder.classList.remove("dragging");
  };
  holder.addEventListener("pointerup", stop);
  holder.addEventListener("pointercancel", stop);
  document.getElementById("reset").addEventListener("click", () => setView(0, end));
  // The keyboard, once the chart has the focus: + and - zoom around the
  // middle by 2, the arrows pan by a tenth of the range, 0 resets.
  holder.tabIndex = 0;
  holder.addEventListener("keydown", (e) => {
    const width = view.t1 - view.t0, middle = (view.t0 + view.t1) / 2;
    const moves = {
      "+": () => setView(middle - width / 4, middle + width / 4),
      "=": () => setView(middle - width / 4, middle + width / 4),
      "-": () => setView(middle - width, middle + width),
      ArrowLeft: () => setView(view.t0 - width / 10, view.t1 - width / 10),
      ArrowRight: () => setView(view.t0 + width / 10, view.t1 + width / 10),
      "0": () => setView(0, end),
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    moves[e.key]();
  });
  window.addEventListener("resize", render);

  function legend() {
    const box = document.getElementById("legend");
    const all = (key) => data.tasks.some((t) => t[key].length > 0);
    const swatch = (draw, label) => {
      const item = document.createElement("span");
      const s = el("svg", { width: 26, height: 14 }, item);
      draw(s);
      item.appendChild(document.createTextNode(label));
      box.appendChild(item);
    };
    swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: data.colours.run }, s), "running");
    const held = new Set(data.tasks.flatMap((t) => t.holds.map((h) => h[2])));
    const waited = new Set(data.tasks.flatMap((t) => t.blocked.map((b) => b[2])));
    data.resources.forEach((r, i) => {
      if (held.has(i)) swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: r.colour }, s), `holds ${r.name} (pale band: the whole hold)`);
      if (waited.has(i)) swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: `url(#hatch-${i})`, stroke: r.colour }, s), `blocked on ${r.name}`);
    });
    const blocked = data.tasks.flatMap((t) => t.blocked);
    if (blocked.some((b) => b[4])) swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: "white", stroke: "#333" }, s), "blocked by the system ceiling (pcp): hatched the other way");
    if (blocked.some((b) => b[3])) swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: "white", stroke: "#333", "stroke-dasharray": "4 3" }, s), "wait timed out (dashed)");
    if (all("boosts")) swatch((s) => el("line", { x1: 1, x2: 25, y1: 7, y2: 7, stroke: "black", "stroke-width": 1.3 }, s), "pN: raised priority (dashed: ceiling from the lock on)");
    swatch((s) => el("path", { d: "M13,1 L18,8 L8,8 Z M12,8 L14,8 L14,13 L12,13 Z", fill: "black" }, s), "release");
    if (all("deadlines")) swatch((s) => el("path", { d: "M13,13 L18,6 L8,6 Z M12,1 L14,1 L14,6 L12,6 Z", fill: "black" }, s), "deadline");
    if (all("misses")) swatch((s) => el("path", { d: "M9,3 L17,11 M9,11 L17,3", stroke: data.colours.miss, "stroke-width": 2 }, s), "deadline missed (red strip: late)");
    if (all("aborts")) swatch((s) => el("path", { d: "M9,3 L17,11 M9,11 L17,3", stroke: "black", "stroke-width": 2.2 }, s), "section aborted (rcs; crossed: lost work)");
    if (data.tasks.some((t) => t.inside.some((p) => p[3] === "recovery"))) swatch((s) => el("rect", { x: 1, y: 2, width: 24, height: 10, fill: "url(#recovery)", stroke: "#333" }, s), "recovery (rcs)");
    if (all("refusals")) swatch((s) => el("path", { d: "M13,1 L19,7 L13,13 L7,7 Z", fill: data.colours.refusal, stroke: "black" }, s), "call refused by the kernel (its error)");
  }

  render();
  legend();
})();
