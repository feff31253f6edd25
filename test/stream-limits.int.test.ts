// The router's gRPC surface against clients that hurt others (issue #28, item 4), on the real
// processes of a test cluster:
//   - stream slots: 2,000 WatchPlayer streams from one client without a token are answered with
//     exactly LADDER_WATCH_STREAMS_PER_CALLER streams and RESOURCE_EXHAUSTED naming the limit for the
//     rest; a caller with a token has slots of its own; closing a stream frees its slot;
//   - back-pressure: WatchTop streams whose clients never read (raw HTTP/2 streams, paused), while a
//     writer moves the top, are ended by the router (RST_STREAM ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED)
//     once they stalled past LADDER_WATCH_STALL_MS, the
//     router's resident memory (RSS from /proc) grows by less than GROWTH_BOUND over the run, and a
//     reading client's stream beside them keeps receiving;
//   - headers: a call whose metadata is far above what HTTP/2 takes (100 KB) is answered at once with
//     an error, not left until the client's deadline; one above the router's limit but within what
//     HTTP/2 takes is refused with RESOURCE_EXHAUSTED naming the limit.
import { readFileSync } from "node:fs";
import * as http2 from "node:http2";
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { MAX_METADATA_BYTES } from "@ladder/platform/grpc-adapter";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { LeaderboardService, WatchTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import { Scrape } from "./prom-text.js";

const BOARD = "limits";
const PER_CALLER = 40;
const STALL_MS = 2000;
const STALLED = 30;
const WARM_UP_MS = 5000;
const RUN_MS = 10_000;
/**
 * Resident memory the router may add over the run, bytes: a guard against growth without bound, not a
 * fine measure. The router's heap grows by up to ~115 MiB of its own under this load (30 top-100
 * streams at 20 messages a second, measured with every stalled stream cut within 3 s); without the
 * bounds, each stalled stream would pile up its messages (~180 KB/s) in the router for as long as its
 * client does not read, ~100 MB more over the run. What the streams hold unsent is checked exactly, by
 * the router's ladder_grpc_server_stream_unsent_bytes.
 */
const GROWTH_BOUND = 160 * 1024 * 1024;
const BUFFER_BYTES = 64 * 1024;
/** Larger than any message of these streams (a top 100 of 60-character ids: ~9 KB). */
const MESSAGE_BOUND = 64 * 1024;
const id = (i: number) => `player-${String(i).padStart(4, "0")}-${"x".repeat(48)}`;

let c: TestCluster;
const clients: Array<ClientOf<typeof LeaderboardService>> = [];
const client = (token?: string) => {
  const stub = createClient(LeaderboardService, c.services.routerAddress, undefined, {}, token);
  clients.push(stub);
  return stub;
};

beforeAll(async () => {
  c = await startTestCluster("stream-limits", {
    settings: {
      LADDER_WATCH_STREAMS_PER_CALLER: String(PER_CALLER),
      LADDER_WATCH_STALL_MS: String(STALL_MS),
      LADDER_WATCH_BUFFER_BYTES: String(BUFFER_BYTES),
    },
  });
  const seed = await c.ingest.submitScores({
    updates: Array.from({ length: 200 }, (_, i) => ({
      board: BOARD,
      playerId: id(i),
      op: Operation.SET,
      value: BigInt(i),
      timestampMs: BigInt(Date.now()),
    })),
  });
  await c.waitApplied(seed.offsets);
}, 240_000);
afterAll(async () => {
  for (const s of clients) s.close();
  await c?.stop();
});

type Outcome = { served: true } | { served: false; code: number; details: string };

/** Whether a stream sends its first message or fails first. */
function firstOutcome(stream: grpc.ClientReadableStream<unknown>): Promise<Outcome> {
  return new Promise((resolve) => {
    stream.once("data", () => resolve({ served: true }));
    stream.once("error", (err: grpc.ServiceError) => resolve({ served: false, code: err.code, details: err.details }));
  });
}

describe("router > watch stream slots per caller", () => {
  it("serves LADDER_WATCH_STREAMS_PER_CALLER of 2,000 streams from one client, refuses the rest naming the limit, and frees a slot on close", async () => {
    const anonymous = client();
    const streams: Array<grpc.ClientReadableStream<unknown>> = Array.from({ length: 2000 }, (_, i) =>
      anonymous.watchPlayer({ board: BOARD, playerId: id(i % 200) }),
    );
    const outcomes = await Promise.all(streams.map(firstOutcome));
    const served = outcomes.filter((o) => o.served).length;
    const refused = outcomes.filter((o): o is Extract<Outcome, { served: false }> => !o.served);
    expect(served).toBe(PER_CALLER);
    expect(refused.length).toBe(2000 - PER_CALLER);
    expect(new Set(refused.map((r) => r.code))).toEqual(new Set([grpc.status.RESOURCE_EXHAUSTED]));
    expect(refused[0]!.details).toMatch(
      new RegExp(`address 127\\.0\\.0\\.1 holds ${PER_CALLER} watch streams.*LADDER_WATCH_STREAMS_PER_CALLER = ${PER_CALLER}`),
    );

    // a token is a caller of its own
    const withToken = client(TEST_TOKENS.read).watchTop({ board: BOARD, limit: 5 });
    expect(await firstOutcome(withToken)).toEqual({ served: true });
    withToken.cancel();

    // closing one frees its slot: the next is served, the one after refused again
    const open = streams.filter((_, i) => outcomes[i]!.served);
    open[0]!.cancel();
    let again: Outcome | undefined;
    for (let tries = 0; tries < 50 && !again?.served; tries++) {
      const next = anonymous.watchTop({ board: BOARD, limit: 5 });
      streams.push(next);
      again = await firstOutcome(next);
      if (!again.served) await new Promise((r) => setTimeout(r, 100)); // the cancel reaches the router
    }
    expect(again).toEqual({ served: true });
    const past = await firstOutcome(anonymous.watchTop({ board: BOARD, limit: 5 }));
    expect(past.served).toBe(false);
    for (const s of streams) s.cancel(); // closing the client leaves its calls open
    anonymous.close();
  });
});

/**
 * A WatchTop call from a client that reads the response's headers and then never reads again: a raw
 * HTTP/2 stream, paused (its flow-control window then fills, and what the router sends next waits in
 * the router). grpc-js clients are no such clients: they take every message into their own memory
 * whether their consumer reads or not. Resolves `ended` with the stream's RST_STREAM code once the
 * router ends it (0: it ended normally).
 */
function stalledWatchTop(
  address: string,
  request: MessageInitShape<typeof WatchTopRequestSchema>,
): { ended: Promise<number>; close(): void } {
  const session = http2.connect(`http://${address}`);
  session.on("error", () => {});
  const stream = session.request({
    ":method": "POST",
    ":path": "/leaderboard.v1.LeaderboardService/WatchTop",
    "content-type": "application/grpc",
    te: "trailers",
  });
  const body = toBinary(WatchTopRequestSchema, create(WatchTopRequestSchema, request));
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  stream.end(frame);
  stream.once("response", () => stream.pause()); // never reads again
  stream.on("error", () => {});
  const ended = new Promise<number>((resolve) => stream.once("close", () => resolve(stream.rstCode ?? 0)));
  return { ended, close: () => session.destroy() };
}

describe("router > watch streams whose client stops reading", () => {
  it("ends them after the stall bound with RESOURCE_EXHAUSTED, keeps its memory bounded, and serves the reading client", async () => {
    let writing = true;
    let round = 0;
    const writer = (async () => {
      while (writing) {
        round++;
        const updates = Array.from({ length: 40 }, (_, k) => ({
          board: BOARD,
          playerId: id((round * 41 + k * 7) % 200),
          op: Operation.SET,
          value: BigInt(1000 + round * 50 + k),
          timestampMs: BigInt(Date.now()),
        }));
        await c.ingest.submitScores({ updates });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    const pid = c.services.router().pid!;
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
    const reader = client().watchTop({ board: BOARD, limit: 100, intervalMs: 50 });
    let got = 0;
    let readerError: grpc.ServiceError | undefined;
    reader.on("data", () => got++);
    reader.on("error", (err: grpc.ServiceError) => (readerError = err));
    const request = { board: BOARD, limit: 100, intervalMs: 50 };
    // warm-up: one wave of stalled streams, cut, so the router's heap has grown to its working size under this load
    const warmUp = Array.from({ length: STALLED }, () => stalledWatchTop(c.services.routerAddress, request));
    await Promise.all([...warmUp.map((s) => s.ended), new Promise((r) => setTimeout(r, WARM_UP_MS))]);
    for (const s of warmUp) s.close();
    const before = rss();
    const gotBefore = got;
    // then STALLED clients that never read, each opening a stream again as soon as the router cut the last, for RUN_MS
    const started = Date.now();
    const cuts: Array<{ code: number; afterMs: number }> = [];
    const attackers = Array.from({ length: STALLED }, async () => {
      while (Date.now() - started < RUN_MS) {
        const openedAt = Date.now();
        const s = stalledWatchTop(c.services.routerAddress, request);
        const code = await Promise.race([
          s.ended,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), RUN_MS + started - Date.now())),
        ]);
        s.close();
        if (code !== undefined) cuts.push({ code, afterMs: Date.now() - openedAt });
      }
    });
    let peak = before;
    let unsentPeak = 0;
    while (Date.now() - started < RUN_MS) {
      await new Promise((r) => setTimeout(r, 500));
      peak = Math.max(peak, rss());
      const scrape = await Scrape.of(c.services.metricsUrl("router"));
      unsentPeak = Math.max(unsentPeak, scrape.sum("ladder_grpc_server_stream_unsent_bytes", {}));
    }
    await Promise.all(attackers);
    writing = false;
    await writer;
    const gotWhileStalled = got - gotBefore;
    const after = rss();
    const cutAfter = cuts.map((k) => k.afterMs).sort((a, b) => a - b);
    console.log(
      `router RSS ${(before / 2 ** 20).toFixed(1)} MiB at the start, peak ${(peak / 2 ** 20).toFixed(1)} MiB, ${(after / 2 ** 20).toFixed(1)} MiB at the end of ${RUN_MS / 1000} s (streams' unsent bytes at most ${unsentPeak}) with ${STALLED} clients that never read: ${cuts.length} streams cut, after ${cutAfter[0]}–${cutAfter.at(-1)} ms (median ${cutAfter[cutAfter.length >> 1]}); the reader got ${gotWhileStalled} messages meanwhile`,
    );
    // each ended by the router: reset with ENHANCE_YOUR_CALM (grpc-js clients report RESOURCE_EXHAUSTED), again and again
    expect(new Set(cuts.map((k) => k.code))).toEqual(new Set([http2.constants.NGHTTP2_ENHANCE_YOUR_CALM]));
    expect(cuts.length).toBeGreaterThanOrEqual(2 * STALLED);
    expect(readerError).toBeUndefined();
    expect(gotWhileStalled).toBeGreaterThan(10); // the reading client kept receiving while the others stalled
    reader.cancel();
    expect(unsentPeak).toBeGreaterThan(0); // the router did hold what they left untaken ...
    expect(unsentPeak).toBeLessThanOrEqual((STALLED + 1) * (BUFFER_BYTES + MESSAGE_BOUND)); // ... and no more than the bound
    expect(peak - before).toBeLessThan(GROWTH_BOUND);
  });
});

describe("router > oversized headers", () => {
  it("answers a call with 100 KB of metadata at once with an error, not at the client's deadline", async () => {
    const stub = client();
    const metadata = new grpc.Metadata();
    // letters at random: HPACK's Huffman code cannot shrink them below what HTTP/2 takes
    let seed = 7;
    metadata.set(
      "x-big",
      Array.from({ length: 100_000 }, () => String.fromCharCode(97 + ((seed = (seed * 48271) % 2147483647) % 26))).join(""),
    );
    const err = await stub.getTop({ board: BOARD, limit: 1 }, { metadata, timeoutMs: 10_000 }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err).toBeDefined();
    expect(err!.code).not.toBe(grpc.status.DEADLINE_EXCEEDED);
    console.log(`100 KB of metadata: ${grpc.status[err!.code]} ${err!.details}`);
    // metadata HTTP/2 delivers but above the router's limit: refused with the limit named
    const over = new grpc.Metadata();
    over.set("x-big", "y".repeat(MAX_METADATA_BYTES + 1));
    const refused = await stub.getTop({ board: BOARD, limit: 1 }, { metadata: over, timeoutMs: 10_000 }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(refused?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(refused?.details).toMatch(new RegExp(`above the limit of ${MAX_METADATA_BYTES} bytes`));
    // the connection still serves the next call
    expect((await stub.getTop({ board: BOARD, limit: 1 }, { timeoutMs: 10_000 })).entries.length).toBe(1);
  });
});
