// The board's score histogram (GetHistogram: each bucket's count, summed over the shards), drawn
// as bars in SVG; the bucket of the player shown is marked. Read again every few seconds (the
// router keeps it for a second: cheap). A board without histogram_bounds has none.
import { boardPath, get } from "./api.js";
import { count, el, time } from "./format.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 600;
const H = 180;
const LABEL_H = 18;
const REFRESH_MS = 2000;

export class HistogramView {
  constructor({ box, meta }) {
    Object.assign(this, { box, meta });
    this.timer = undefined;
    this.score = undefined;
  }

  /** Shows `board`'s histogram (period, window) when `bounded`, and keeps it fresh. */
  show(board, where, bounded) {
    this.stop();
    this.box.replaceChildren();
    this.meta.textContent = "";
    if (!bounded) {
      this.box.replaceChildren(el("p", "This board keeps no histogram (a board defined with histogram_bounds does).", { class: "note" }));
      return;
    }
    const load = () =>
      get(boardPath(board, "histogram"), where).then(
        (h) => this.draw(h),
        (err) => {
          this.box.replaceChildren(el("p", `${err.code}: ${err.message}`, { class: "error" }));
        },
      );
    void load();
    this.timer = setInterval(load, REFRESH_MS);
  }

  /** Marks the bucket holding `score` (undefined: none). */
  mark(score) {
    this.score = score;
    for (const bar of this.box.querySelectorAll("rect.bar")) bar.classList.toggle("mine", this.holds(bar));
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  draw(h) {
    const max = Math.max(1, ...h.buckets.map((b) => Number(b.count)));
    const slot = W / h.buckets.length;
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H + LABEL_H}`);
    svg.setAttribute("width", "100%");
    const every = Math.ceil(h.buckets.length / 8); // at most 8 labels
    h.buckets.forEach((b, i) => {
      const height = (Number(b.count) / max) * (H - 4);
      const bar = svgEl("rect", {
        class: "bar",
        x: i * slot + 1,
        y: H - height,
        width: Math.max(1, slot - 2),
        height,
        "data-testid": "histogram-bar",
        "data-min": b.minScore,
        "data-max": b.maxScore,
        "data-count": b.count,
      });
      bar.append(svgEl("title", {}, `${count(b.minScore)} – ${count(b.maxScore)}: ${count(b.count)} players`));
      bar.classList.toggle("mine", this.holds(bar));
      svg.append(bar);
      if (i % every === 0) svg.append(svgEl("text", { x: i * slot + 2, y: H + 13 }, count(b.minScore)));
    });
    this.box.replaceChildren(svg);
    this.meta.textContent = `${count(h.total)} players in ${h.buckets.length} buckets · read at ${time(h.readAtMs)}`;
  }

  holds(bar) {
    return this.score !== undefined && Number(bar.dataset.min) <= this.score && this.score <= Number(bar.dataset.max);
  }
}

function svgEl(tag, attrs, text = "") {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text) e.textContent = text;
  return e;
}
