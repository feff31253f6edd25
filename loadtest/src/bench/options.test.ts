import { describe, expect, it } from "vitest";
import { parseBenchOptions } from "./options.js";

describe("bench > options", () => {
  it("runs every benchmark in the fixed order by default", () => {
    expect(parseBenchOptions([])).toEqual({
      quick: false,
      selected: ["grpc", "rank-index", "replicas", "ingest", "rebuild", "competitions", "columns"],
      outDir: "loadtest/results",
    });
  });

  it("selects benchmarks by name, keeping the fixed order", () => {
    expect(parseBenchOptions(["--quick", "rebuild", "grpc"])).toMatchObject({ quick: true, selected: ["grpc", "rebuild"] });
  });

  it("keeps a quick run's files out of the tree unless --out says otherwise", () => {
    expect(parseBenchOptions(["--quick"]).outDir).not.toMatch(/^loadtest\/results/);
    expect(parseBenchOptions(["--quick", "--out", "loadtest/results"]).outDir).toBe("loadtest/results");
  });

  it("refuses an unknown name or flag", () => {
    expect(() => parseBenchOptions(["redis"])).toThrow(/unknown benchmark "redis"/);
    expect(() => parseBenchOptions(["--fast"])).toThrow();
  });
});
