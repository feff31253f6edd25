// The last minutes as plots: the score log's write rate, each shard's lag and the open board's
// size (GET /api/trends: series the gateway keeps, so the page needs no Prometheus), read every
// two seconds. Each plot is an SVG polyline per series over the time the gateway's samples span,
// with its latest value and its maximum written beside it.
import { get } from "./api.js";
import { count, el } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 2000;
const W = 300;
const H = 70;
const COLORS = ["#4fb3ff", "#3ecf8e", "#f5b942", "#ff6b6b", "#b78cff", "#5ad1d1", "#ff9f6b", "#c2d65a"];

export class TrendsView {
  constructor({ writes, lag, size, meta }) {
    Object.assign(this, { writes, lag, size, meta });
    this.timer = undefined;
    this.where = undefined;
  }

  /** Plots the cluster's series and `board`'s size (period, window), kept fresh. */
  show(board, where) {
    this.stop();
    this.where = { board, ...where };
    const question = this.where;
    const load = () =>
      get("trends", question).then(
        (t) => this.where === question && this.draw(t),
        (err) => {
          this.meta.replaceChildren(el("span", `${err.code}: ${err.message}`, { class: "error" }));
        },
      );
    void load();
    this.timer = setInterval(load, POLL_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  draw(t) {
    const c = t.cluster;
    const span = c.length ? [Number(c[0].atMs), Number(c.at(-1).atMs)] : [0, 0];
    const rate = c.filter((s) => s.writesPerSecond !== null).map((s) => [Number(s.atMs), s.writesPerSecond]);
    plot(this.writes, span, [{ name: "writes/s", points: rate }], (v) => `${count(Math.round(v))}/s`);
    const shards = [...new Set(c.flatMap((s) => Object.keys(s.lag)))].sort();
    plot(
      this.lag,
      span,
      shards.map((id) => ({ name: id, points: c.filter((s) => s.lag[id] != null).map((s) => [Number(s.atMs), s.lag[id]]) })),
      (v) => `${count(v)} rec`,
    );
    const sizes = t.board?.samples.map((s) => [Number(s.atMs), s.total]) ?? [];
    plot(this.size, span, [{ name: t.board?.name ?? "board", points: sizes }], (v) => `${count(v)} players`);
    const minutes = Math.max(0, (span[1] - span[0]) / 60_000);
    this.meta.textContent =
      c.length < 2
        ? `collecting: a sample every ${t.stepMs / 1000} s while a dashboard is open`
        : `the last ${minutes < 1 ? `${Math.round(minutes * 60)} s` : `${minutes.toFixed(1)} min`}, a sample every ${t.stepMs / 1000} s`;
  }
}

/** Draws `series` ([{name, points: [[t, v]]}]) into `box` over the time `span`; `fmt` writes a value. */
function plot(box, span, series, fmt) {
  const drawn = series.filter((s) => s.points.length > 0);
  const max = Math.max(1, ...drawn.flatMap((s) => s.points.map(([, v]) => v)));
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", preserveAspectRatio: "none", class: "trend" });
  const x = (t) => (span[1] > span[0] ? ((t - span[0]) / (span[1] - span[0])) * W : W);
  const y = (v) => H - 2 - (v / max) * (H - 4);
  const legend = el("div", "", { class: "legend" });
  drawn.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const line = svgEl("polyline", {
      points: s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
      stroke: color,
      "data-testid": "trend-line",
      "data-series": s.name,
      "data-points": s.points.length,
      "data-last": s.points.at(-1)[1],
    });
    svg.append(line);
    const item = el("span", `${s.name} ${fmt(s.points.at(-1)[1])}`);
    item.style.setProperty("--c", color);
    legend.append(item);
  });
  const head = el("div", "", { class: "trend-head" });
  head.append(el("span", drawn.length ? `max ${fmt(max)}` : "no samples yet", { class: "dim" }));
  box.replaceChildren(head, svg, legend);
}

function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}
