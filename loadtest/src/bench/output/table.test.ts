import { describe, expect, it } from "vitest";
import { renderMarkdown, renderText, tableOf, type Table } from "./table.js";

const t: Table = {
  title: "reads",
  columns: ["op", "ops/s", "ratio"],
  rows: [
    ["rank", "12,345", "0.5x"],
    ["top | 10", "987", "—"],
  ],
};

describe("bench > table", () => {
  it("aligns text columns, numbers to the right", () => {
    expect(renderText(t)).toBe(
      ["reads", "op         ops/s  ratio", "--------  ------  -----", "rank      12,345   0.5x", "top | 10     987      —"].join("\n"),
    );
  });

  it("renders Markdown with right-aligned numeric columns and escaped pipes", () => {
    expect(renderMarkdown(t)).toBe(
      ["| op | ops/s | ratio |", "|---|---:|---:|", "| rank | 12,345 | 0.5x |", "| top \\| 10 | 987 | — |"].join("\n"),
    );
  });

  it("makes a table of rows, a cell per column", () => {
    const rows = [
      { op: "rank", n: 3 },
      { op: "top", n: 12 },
    ];
    expect(
      tableOf("t", rows, [
        ["op", (r) => r.op],
        ["n x 2", (r) => String(r.n * 2)],
      ]),
    ).toEqual({
      title: "t",
      columns: ["op", "n x 2"],
      rows: [
        ["rank", "6"],
        ["top", "24"],
      ],
    });
  });
});
