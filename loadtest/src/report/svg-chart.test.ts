import { describe, expect, it } from "vitest";
import { escapeXml, lineChart, logTicks, niceTicks, shortNumber } from "./svg-chart.js";

describe("loadtest > svg chart", () => {
  it("picks round ticks", () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 7, 5)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(0, 0.3, 3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(5, 5)).toEqual([5]);
  });

  it("picks powers of ten for a log axis, with 2 and 5 when narrow", () => {
    expect(logTicks(0.1, 1000)).toEqual([0.1, 1, 10, 100, 1000]);
    expect(logTicks(1, 100)).toEqual([1, 2, 5, 10, 20, 50, 100]);
  });

  it("labels numbers compactly", () => {
    expect(shortNumber(1234)).toBe("1234");
    expect(shortNumber(12_345)).toBe("12.3k");
    expect(shortNumber(2_500_000)).toBe("2.5M");
    expect(shortNumber(0.0123)).toBe("0.0123");
  });

  it("escapes text", () => {
    expect(escapeXml(`<a & "b">`)).toBe("&lt;a &amp; &quot;b&quot;&gt;");
  });

  it("draws one polyline per run of defined points and a legend entry per series", () => {
    const svg = lineChart({
      title: "p99 <ms>", xLabel: "s", yLabel: "ms",
      series: [
        { name: "write", points: [[0, 1], [1, 2], [2, null], [3, 4], [4, 5]] },
        { name: "rank", points: [[0, 3]], dashed: true },
      ],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.endsWith("</svg>")).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(2); // write is broken in two by the null
    expect(svg.match(/<circle/g)).toHaveLength(1); // a lone point
    expect(svg).toContain("p99 &lt;ms&gt;");
    expect(svg).toContain(">write<");
    expect(svg).toContain(">rank<");
  });

  it("skips values that a log axis cannot show", () => {
    const svg = lineChart({ title: "t", xLabel: "x", yLabel: "y", yLog: true, series: [{ name: "a", points: [[0, 0], [1, 10], [2, 100]] }] });
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg).not.toContain("NaN");
    expect(svg).not.toContain("Infinity");
  });

  it("says so when there is nothing to draw", () => {
    expect(lineChart({ title: "t", xLabel: "x", yLabel: "y", series: [] })).toContain("no data");
  });
});
