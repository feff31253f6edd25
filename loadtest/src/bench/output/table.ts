/**
 * A table of figures, rendered for the terminal (aligned columns) and as Markdown (for
 * the result files, loadtest/results/<bench>.md). Cells are already formatted strings; numeric-looking columns are
 * right-aligned in both renderings.
 */

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
}

const NUMERIC = /^[-+]?[\d,.]+([kMG]|x| s| ms|%)?$|^—$/;

/** Columns whose every cell looks like a number (or a dash) align right. */
function rightAligned(t: Table): boolean[] {
  return t.columns.map((_, c) => t.rows.length > 0 && t.rows.every((r) => NUMERIC.test(r[c] ?? "")));
}

export function renderText(t: Table): string {
  const right = rightAligned(t);
  const widths = t.columns.map((h, c) => Math.max(h.length, ...t.rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (right[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join("  ")
      .trimEnd();
  return [
    t.title,
    line(t.columns),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...t.rows.map((r) => line(t.columns.map((_, c) => r[c] ?? ""))),
  ].join("\n");
}

export function renderMarkdown(t: Table): string {
  const right = rightAligned(t);
  const escapeCell = (s: string) => s.replace(/\|/g, "\\|");
  const row = (cells: string[]) => `| ${cells.map(escapeCell).join(" | ")} |`;
  return [
    row(t.columns),
    `|${right.map((r) => (r ? "---:" : "---")).join("|")}|`,
    ...t.rows.map((r) => row(t.columns.map((_, c) => r[c] ?? ""))),
  ].join("\n");
}
