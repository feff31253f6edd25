/**
 * Line charts as inline SVG strings, for the self-contained HTML report (no script, no
 * network, no chart library). Each series is a list of [x, y] points drawn as one
 * polyline per run of defined points (a null y breaks the line). The y axis is linear
 * from 0, or logarithmic (latencies spread over orders of magnitude); x is linear, with
 * optional explicit ticks (the percentile plot labels its log-transformed axis itself).
 */

export interface Series {
  name: string;
  points: ReadonlyArray<readonly [number, number | null]>;
  /** Draw dashed (e.g. p50 next to a solid p99). */
  dashed?: boolean;
  color?: string;
}

export interface Tick {
  value: number;
  label: string;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  width?: number;
  height?: number;
  yLog?: boolean;
  xTicks?: readonly Tick[];
}

export const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const MARGIN = { left: 64, right: 16, top: 44, bottom: 44 }; // the legend sits in the top margin, under the title

/** Escapes text for SVG/HTML content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** About `count` round tick values (1, 2, 5 x 10^k steps) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** Powers of ten (with 2 and 5 between them when the range is narrow) covering [min, max], min > 0. */
export function logTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(min));
  const hi = Math.ceil(Math.log10(max));
  const steps = hi - lo <= 2 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) for (const m of steps) ticks.push(Number((m * 10 ** e).toPrecision(12)));
  return ticks.filter((t) => t >= min / 1.0001 && t <= max * 1.0001);
}

/** A compact label: 1.2k, 3M, 0.05. */
export function shortNumber(v: number): string {
  const abs = Math.abs(v);
  if (abs >= 1e9) return `${Number((v / 1e9).toPrecision(3))}G`;
  if (abs >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (abs >= 1) return String(Math.round(v * 100) / 100);
  return String(Number(v.toPrecision(3)));
}

/** The chart as an <svg> element. */
export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 280;
  const plot = { x: MARGIN.left, y: MARGIN.top, w: width - MARGIN.left - MARGIN.right, h: height - MARGIN.top - MARGIN.bottom };
  const defined = spec.series.flatMap((s) => s.points.filter((p): p is readonly [number, number] => p[1] !== null && (!spec.yLog || p[1] > 0)));
  const head = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`
    + `<text x="${width / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escapeXml(spec.title)}</text>`;
  if (defined.length === 0) return `${head}<text x="${width / 2}" y="${height / 2}" text-anchor="middle" fill="#888">no data</text></svg>`;
  const xs = defined.map((p) => p[0]);
  const ys = defined.map((p) => p[1]);
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs) === Math.min(...xs) ? Math.min(...xs) + 1 : Math.max(...xs)];
  const y = yScale(spec.yLog ?? false, Math.min(...ys), Math.max(...ys), plot);
  const px = (v: number) => plot.x + ((v - xMin) / (xMax - xMin)) * plot.w;
  const xTicks = spec.xTicks ?? niceTicks(xMin, xMax, 8).map((v) => ({ value: v, label: shortNumber(v) }));
  const parts = [head, `<rect x="${plot.x}" y="${plot.y}" width="${plot.w}" height="${plot.h}" fill="none" stroke="#ccc"/>`];
  for (const t of y.ticks) {
    const yy = y.at(t).toFixed(1);
    parts.push(`<line x1="${plot.x}" x2="${plot.x + plot.w}" y1="${yy}" y2="${yy}" stroke="#eee"/>`, `<text x="${plot.x - 4}" y="${yy}" text-anchor="end" dominant-baseline="middle">${shortNumber(t)}</text>`);
  }
  for (const t of xTicks.filter((t) => t.value >= xMin && t.value <= xMax)) {
    const xx = px(t.value).toFixed(1);
    parts.push(`<line x1="${xx}" x2="${xx}" y1="${plot.y}" y2="${plot.y + plot.h}" stroke="#f3f3f3"/>`, `<text x="${xx}" y="${plot.y + plot.h + 14}" text-anchor="middle">${escapeXml(t.label)}</text>`);
  }
  parts.push(
    `<text x="${plot.x + plot.w / 2}" y="${height - 6}" text-anchor="middle" fill="#444">${escapeXml(spec.xLabel)}</text>`,
    `<text transform="translate(14 ${plot.y + plot.h / 2}) rotate(-90)" text-anchor="middle" fill="#444">${escapeXml(spec.yLabel)}</text>`,
  );
  spec.series.forEach((s, i) => parts.push(...seriesLines(s, s.color ?? PALETTE[i % PALETTE.length]!, px, y.at, spec.yLog ?? false)));
  parts.push(legend(spec.series, plot));
  return parts.join("") + "</svg>";
}

interface YScale {
  at(v: number): number;
  ticks: number[];
}

function yScale(log: boolean, min: number, max: number, plot: { y: number; h: number }): YScale {
  if (log) {
    const lo = 10 ** Math.floor(Math.log10(min));
    const hi = Math.max(10 ** Math.ceil(Math.log10(max)), lo * 10);
    const at = (v: number) => plot.y + plot.h - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plot.h;
    return { at, ticks: logTicks(lo, hi) };
  }
  const ticks = niceTicks(0, max > 0 ? max : 1, 5);
  const top = Math.max(ticks[ticks.length - 1]!, max > 0 ? max : 1);
  return { at: (v: number) => plot.y + plot.h - (v / top) * plot.h, ticks };
}

function seriesLines(s: Series, color: string, px: (v: number) => number, py: (v: number) => number, log: boolean): string[] {
  const runs: string[][] = [[]];
  for (const [x, yv] of s.points) {
    if (yv === null || (log && yv <= 0)) runs.push([]);
    else runs[runs.length - 1]!.push(`${px(x).toFixed(1)},${py(yv).toFixed(1)}`);
  }
  const dash = s.dashed ? ` stroke-dasharray="4 3"` : "";
  return runs.filter((r) => r.length).map((r) =>
    r.length === 1
      ? `<circle cx="${r[0]!.split(",")[0]}" cy="${r[0]!.split(",")[1]}" r="2" fill="${color}"/>`
      : `<polyline fill="none" stroke="${color}" stroke-width="1.5"${dash} points="${r.join(" ")}"/>`);
}

function legend(series: readonly Series[], plot: { x: number; y: number; w: number }): string {
  let x = plot.x + 6;
  const items = series.map((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length]!;
    const dash = s.dashed ? ` stroke-dasharray="4 3"` : "";
    const y = plot.y - 12;
    const item = `<line x1="${x}" x2="${x + 16}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="2"${dash}/>`
      + `<text x="${x + 20}" y="${y}" dominant-baseline="middle">${escapeXml(s.name)}</text>`;
    x += 28 + s.name.length * 6.5;
    return item;
  });
  return `<g>${items.join("")}</g>`;
}
