import { describe, expect, it } from "vitest";
import { aclEntries, aclGrants, KAFKA_ROLE_USERS } from "./kafka-acls.js";

const S = "ladder.scores";
const ops = (user: string, topic: string) =>
  aclGrants(S)
    .filter((g) => g.user === user && g.resource === "topic" && g.name === topic)
    .flatMap((g) => g.operations);

describe("log > kafka acls", () => {
  it("lets only ingest and the router's control plane write the score topic", () => {
    const writers = KAFKA_ROLE_USERS.filter((u) => ops(u, S).includes("WRITE"));
    expect(writers).toEqual(["ingest", "router-control"]);
    expect(ops("router", S)).not.toContain("WRITE");
    expect(ops("shard", S)).not.toContain("WRITE");
  });

  it("gives each internal topic's writes to its one writer: snapshots to shard nodes, definitions to the router's control plane", () => {
    expect(KAFKA_ROLE_USERS.filter((u) => ops(u, `${S}.snapshots`).includes("WRITE"))).toEqual(["shard"]);
    expect(KAFKA_ROLE_USERS.filter((u) => ops(u, `${S}.boards`).includes("WRITE"))).toEqual(["router-control"]);
    // placement: epoch 1 by the first shard node when the topic is empty, later ones by reshards
    expect(KAFKA_ROLE_USERS.filter((u) => ops(u, `${S}.placement`).includes("WRITE"))).toEqual(["shard", "router-control"]);
    expect(ops("router-control", S)).not.toContain("READ");
  });

  it("names topics literally and groups by prefix, one ALLOW entry per operation, for the topic given", () => {
    const entries = aclEntries(aclGrants("t"));
    expect(entries.length).toBe(aclGrants("t").reduce((n, g) => n + g.operations.length, 0));
    expect(entries.every((e) => e.resourceName === "t" || e.resourceName.startsWith("t."))).toBe(true);
    const group = entries.find((e) => e.resourceName === "t.shard.")!;
    const topic = entries.find((e) => e.resourceName === "t")!;
    expect(group.resourcePatternType).not.toBe(topic.resourcePatternType);
    expect(new Set(entries.map((e) => e.principal))).toEqual(new Set(KAFKA_ROLE_USERS.map((u) => `User:${u}`)));
  });
});
