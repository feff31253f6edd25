// ioredis 6.0.0's RESP decoder was built by tsc with its private members as WeakMap and WeakSet
// lookups behind __classPrivateFieldGet/Set, paid on every byte of every reply: a third of the
// client's CPU per sorted-set member of a large reply. patches/ioredis+6.0.0.patch (applied by
// patch-package on npm install) makes them plain properties and direct calls, the same code
// otherwise. These tests run the installed decoder: they fail where the patch is not applied, and
// check that it decodes every reply type ioredis reads, whole, byte by byte and split anywhere.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const decoderPath = require.resolve("ioredis/built/resp/decoder.js");
const { Decoder, RESP_TYPES } = require(decoderPath) as {
  Decoder: new (config: {
    onReply(reply: unknown): void;
    onErrorReply(err: Error): void;
    onPush(reply: unknown): void;
    getTypeMapping(): Record<number, unknown>;
  }) => { write(chunk: Buffer): void };
  RESP_TYPES: Record<string, number>;
};

// the mapping ioredis's DataHandler uses for RESP2-shaped replies (strings as Buffers)
const mapping = {
  [RESP_TYPES.SIMPLE_STRING!]: Buffer,
  [RESP_TYPES.BLOB_STRING!]: Buffer,
  [RESP_TYPES.VERBATIM_STRING!]: Buffer,
  [RESP_TYPES.BIG_NUMBER!]: String,
  [RESP_TYPES.DOUBLE!]: Buffer,
  [RESP_TYPES.BOOLEAN!]: Number,
  [RESP_TYPES.MAP!]: Array,
  [RESP_TYPES.SET!]: Array,
};

const plain = (x: unknown): unknown =>
  Buffer.isBuffer(x) ? `buf:${x.toString("utf8")}` : Array.isArray(x) ? x.map(plain) : x instanceof Error ? `err:${x.message}` : x;

/** What a fresh decoder hands on for `chunks`, in order. */
function decode(chunks: readonly Buffer[]): unknown[] {
  const out: unknown[] = [];
  const d = new Decoder({
    onReply: (r) => out.push(plain(r)),
    onErrorReply: (e) => out.push(plain(e)),
    onPush: (r) => out.push(["push", plain(r)]),
    getTypeMapping: () => mapping,
  });
  for (const c of chunks) d.write(c);
  return out;
}

const long = "x".repeat(70_000);
const stream = Buffer.from(
  [
    "+OK\r\n",
    ":-42\r\n",
    "$5\r\nhello\r\n",
    "$0\r\n\r\n",
    "$-1\r\n",
    "*3\r\n$1\r\na\r\n:7\r\n*2\r\n$3\r\nxyz\r\n*-1\r\n",
    "-ERR bad thing\r\n",
    ",3.25\r\n",
    "(12345678901234567890\r\n",
    "#t\r\n",
    "_\r\n",
    "%1\r\n$1\r\nk\r\n:1\r\n",
    "*0\r\n",
    `$${long.length}\r\n${long}\r\n`,
  ].join(""),
);
// written out here, not taken from any decoder
const expected = [
  "buf:OK",
  -42,
  "buf:hello",
  "buf:",
  null,
  ["buf:a", 7, ["buf:xyz", null]],
  "err:ERR bad thing",
  "buf:3.25",
  "12345678901234567890",
  1,
  null,
  ["buf:k", 1],
  [],
  `buf:${long}`,
];

describe("ioredis RESP decoder (patched)", () => {
  it("is the patched build: no WeakMap or WeakSet behind its private members", () => {
    const source = readFileSync(decoderPath, "utf8");
    expect(source).not.toContain("__classPrivateFieldGet(");
    expect(source).not.toContain("new WeakMap");
    expect(source).toContain("ladder:");
  });

  it("decodes every reply type whole", () => {
    expect(decode([stream])).toEqual(expected);
  });

  it("decodes them the same fed byte by byte", () => {
    const head = stream.subarray(0, stream.length - long.length - 2);
    const bytes = Array.from(head, (_, i) => head.subarray(i, i + 1));
    expect(decode([...bytes, stream.subarray(head.length)])).toEqual(expected);
  });

  it("decodes them the same split in two at any byte", () => {
    const short = stream.subarray(0, stream.length - long.length - 10); // the long string's head is cut too
    const want = decode([short]);
    expect(want.length).toBe(expected.length - 1);
    for (let at = 1; at < short.length; at++) expect(decode([short.subarray(0, at), short.subarray(at)])).toEqual(want);
  });
});
