/**
 * A table of figures, rendered for the terminal (aligned columns) and as Markdown (for
 * the result files, loadtest/results/<bench>.md). Cells are already formatted strings; numeric-looking columns are
 * right-aligned in both renderings. A benchmark's tables are made with `tableOf` from the rows it
 * keeps in its JSON: each column a header and the cell it takes from a row.
 */

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
}

/** A column of `tableOf`: its header, and its cell of a row. */
export type Column<T> = readonly [header: string, cell: (row: T) => string];

/** The table of `rows`, one line each, a cell per column: header and value side by side in one list. */
export function tableOf<T>(title: string, rows: readonly T[], columns: ReadonlyArray<Column<T>>): Table {
  return { title, columns: columns.map(([h]) => h), rows: rows.map((r) => columns.map(([, cell]) => cell(r))) };
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
