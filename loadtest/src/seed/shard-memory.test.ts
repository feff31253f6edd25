import { describe, expect, it } from "vitest";
import { bytesPerMember, usedMemory } from "./shard-memory.js";

describe("loadtest > shard memory", () => {
  it("reads used_memory from INFO memory", () => {
    expect(usedMemory("# Memory\r\nused_memory:123456\r\nused_memory_human:120.56K\r\n")).toBe(123456);
    expect(() => usedMemory("# Memory\r\n")).toThrow();
  });

  it("divides the memory added by the members added", () => {
    const before = [
      { shard: "a", usedMemoryBytes: 1000, boardMembers: 0 },
      { shard: "b", usedMemoryBytes: 1000, boardMembers: 0 },
    ];
    const after = [
      { shard: "a", usedMemoryBytes: 11_000, boardMembers: 100 },
      { shard: "b", usedMemoryBytes: 12_000, boardMembers: 100 },
    ];
    expect(bytesPerMember(before, after)).toBe(105);
    expect(bytesPerMember(before, before)).toBeUndefined();
  });
});
