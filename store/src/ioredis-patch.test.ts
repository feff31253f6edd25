// ioredis 6.0.0 flattens every command's arguments with Array.prototype.flat, whose generic path costs
// ~125 ns per element in Node 20: 90 us for the ~760 arguments of a 40-event apply script call, a sixth
// of a shard node's busy time under write load (profile of 2026-12-03). patches/ioredis+6.0.0.patch
// flattens them with a plain loop. These tests run the installed Command: the arguments it keeps must be
// exactly what flat() gives, for every shape ioredis accepts.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const Command = (require("ioredis/built/Command.js") as { default: new (name: string, args: unknown[]) => { args: unknown[] } }).default;

describe("ioredis command arguments (patched)", () => {
  it("are the arguments flattened one level, as Array.prototype.flat does", () => {
    const buf = Buffer.from("bytes");
    const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const shapes: unknown[][] = [
      [],
      ["key"],
      ["sha", 3, ["k1", "k2", "k3"], ["a", 1, 2.5], [], "last"],
      [["only", "nested"]],
      ["bytes", buf, [buf, "x"]],
      ["holes", holey, [undefined, null]],
      Array.from({ length: 800 }, (_, i) => (i % 3 === 0 ? [String(i), i] : i)),
    ];
    // the same command given the arguments flattened beforehand (each shape nests one level at most):
    // whatever ioredis does to them next (stringifying) is then the same
    for (const name of ["evalsha", "zadd", "get"]) for (const args of shapes) expect(new Command(name, args).args).toEqual(new Command(name, args.flat()).args);
    expect(new Command("get", ["holes", holey]).args).toEqual(["holes", "1", "3"]); // a hole is skipped, not kept as undefined
    expect(new Command("zadd", ["k", [["a", "b"], "c"]]).args).toEqual(["k", "a,b", "c"]); // one level only: the inner array is one argument, as with flat()
  });
});
