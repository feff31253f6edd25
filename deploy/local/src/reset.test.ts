import { describe, expect, it } from "vitest";
import { resetTargets } from "./reset.js";

describe("deploy > reset", () => {
  it("picks the cluster's state out of a data dir's entries, leaving anything else", () => {
    const entries = [
      "credentials.json",
      "kafka",
      "launcher-state.json",
      "launcher.pid",
      "logs",
      "notes.txt",
      "redis-0",
      "redis-0-replica-1",
      "redis-12",
      "redis-x",
      "sentinel-2",
      "stream-secret",
    ];
    expect(resetTargets(entries).map((t) => t.name)).toEqual([
      "credentials.json",
      "kafka",
      "launcher-state.json",
      "launcher.pid",
      "logs",
      "redis-0",
      "redis-0-replica-1",
      "redis-12",
      "sentinel-2",
      "stream-secret",
    ]);
    expect(resetTargets(["kafka"])[0]!.what).toMatch(/Kafka's log/);
  });
});
