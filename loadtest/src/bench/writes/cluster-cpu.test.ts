import { describe, expect, it } from "vitest";
import { clusterCpuFigures, clusterCpuTable, type ClusterProcess } from "./cluster-cpu.js";

const proc = (name: string, kind: string): ClusterProcess => ({ name, kind, cpu: async () => 0 });

describe("bench > cluster CPU per update", () => {
  it("takes each process's rest out, divides by the updates, and sums by kind and in all", () => {
    const processes = [
      proc("ingest", "ingest"),
      proc("shard node a", "shard nodes"),
      proc("shard node b", "shard nodes"),
      proc("broker", "Kafka"),
    ];
    const f = clusterCpuFigures(processes, {
      start: [10, 20, 30, 40],
      // over 10 s: ingest 3 s, shard nodes 2 s and 1.5 s, Kafka 1.1 s (1 s of it at rest: 0.1 cores)
      end: [13, 22, 31.5, 41.1],
      rest: [0, 0.05, 0, 0.1],
      seconds: 10,
      updates: 100_000,
    });
    expect(f.processes.map((p) => p.usPerUpdate)).toEqual([30, 15, 15, 1]);
    expect(f.kinds).toEqual([
      { kind: "ingest", count: 1, usPerUpdate: 30 },
      { kind: "shard nodes", count: 2, usPerUpdate: 30 },
      { kind: "Kafka", count: 1, usPerUpdate: 1 },
    ]);
    expect(f.totalUsPerUpdate).toBe(61);
    expect(clusterCpuTable(f).rows).toEqual([
      ["ingest", "30.0"],
      ["shard nodes (2)", "30.0"],
      ["Kafka", "1.0"],
      ["the whole cluster", "61.0"],
    ]);
  });
});
