import { describe, expect, it } from "vitest";
import { renderMarkdown, renderText, type Table } from "./table.js";

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
});
