// The gateway's live streams against clients that stop reading: a stream whose client has not taken
// what was sent within LADDER_GATEWAY_STREAM_STALL_MS is ended, so the gateway's memory stays
// bounded and the client's stream slots come back. On real processes: a test cluster, a gateway
// process, raw TCP clients that read the response headers and then never read again, a reading
// client beside them, and a writer moving the top of the watched board all along (so every stream
// has large messages to send: the top 100 of players with 60-character ids, 20 a second).
// Checked: each stalled stream is ended by the gateway (its slot is free again: new streams up to
// the per-client limit open); the reading client's stream goes on receiving meanwhile; the
// gateway's resident memory grows by less than GROWTH_BOUND over the run.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rootLogger } from "@ladder/platform/logger";
import { startGatewayService, type GatewayService } from "@ladder/deploy/gateway-service";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { startTestCluster, type TestCluster } from "./cluster-harness.js";
import { EventStream } from "./http-client.js";

const BOARD = "flood";
const STALLED = 12;
const STALL_MS = 2000;
const RUN_MS = 20_000;
/** How long after the run the stalled streams' slots may take to come back. */
const SLOTS_BACK_MS = 60_000;
/**
 * Resident memory the gateway may add over the run, bytes: a guard against growth without bound, not
 * a fine measure (RSS moves by tens of MB with the heap's own growth under the reader's and writer's
 * load; within 20 s the kernel's socket buffers absorb much of what stalled streams would pile up, so
 * the check that tells a bounded relay from an unbounded one is the slots coming back).
 */
const GROWTH_BOUND = 64 * 1024 * 1024;
const id = (i: number) => `player-${String(i).padStart(4, "0")}-${"x".repeat(48)}`;
const log = rootLogger({ level: "fatal", name: "test-gateway-backpressure" });

let c: TestCluster;
let gateway: GatewayService;

beforeAll(async () => {
  c = await startTestCluster("gw-backpressure");
  gateway = await startGatewayService({
    listen: "127.0.0.1:0",
    routerAddress: c.services.routerAddress,
    baseEnv: { ...process.env, ...c.services.env },
    log,
    settings: {
      LADDER_GATEWAY_STREAMS: String(STALLED + 1),
      LADDER_GATEWAY_RATE: "1000",
      LADDER_GATEWAY_BURST: "1000",
      LADDER_GATEWAY_STREAM_STALL_MS: String(STALL_MS),
    },
  });
}, 240_000);
afterAll(async () => {
  await gateway?.stop();
  await c?.stop();
});

const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
const watchPath = `/api/boards/${BOARD}/watch/top?limit=100&interval_ms=50`;

/** A client that sends the request, reads until the headers have come, then stops reading. */
function stalledClient(address: string): Promise<{ socket: Socket; status: number }> {
  const [host, port] = [address.slice(0, address.lastIndexOf(":")), Number(address.slice(address.lastIndexOf(":") + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () =>
      socket.write(`GET ${watchPath} HTTP/1.1\r\nHost: ${address}\r\nAccept: text/event-stream\r\n\r\n`),
    );
    let head = "";
    socket.on("error", reject);
    socket.on("data", function onData(chunk) {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      socket.pause(); // never reads again: the kernel's buffers fill, then the gateway's
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)![1]) });
    });
  });
}

describe("gateway > streams whose client stops reading", () => {
  it("ends them after the stall bound, keeps its memory bounded, and serves the reading client", async () => {
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

    const pid = gateway.process().pid!;
    const opened = await EventStream.open(`${gateway.url.replace(/\/$/, "")}${watchPath}`);
    if (!(opened instanceof EventStream)) throw new Error(`the reading client's stream was refused: ${JSON.stringify(opened)}`);
    const reader = opened;
    const stalled = await Promise.all(Array.from({ length: STALLED }, () => stalledClient(gateway.address)));
    expect(stalled.map((s) => s.status)).toEqual(Array(STALLED).fill(200));
    const before = rss(pid);
    let peak = before;
    const started = Date.now();
    while (Date.now() - started < RUN_MS) {
      await new Promise((r) => setTimeout(r, 500));
      peak = Math.max(peak, rss(pid));
    }
    writing = false;
    await writer;
    console.log(
      `gateway RSS ${(before / 2 ** 20).toFixed(1)} MiB at the start, peak ${(peak / 2 ** 20).toFixed(1)} MiB over ${RUN_MS / 1000} s with ${STALLED} stalled streams`,
    );

    // every stalled stream is ended: its slot comes back, so STALLED new streams open (the limit is STALLED + 1, the
    // reader holds one). A stream is cut once its buffers are full and stay full for STALL_MS; how soon they fill
    // depends on the kernel's socket buffers and on how fast a loaded machine writes, so a refused slot is tried again
    // each second until SLOTS_BACK_MS: a relay that never cuts never gives them back.
    const again: { socket: Socket; status: number }[] = [];
    const deadline = Date.now() + SLOTS_BACK_MS;
    for (;;) {
      const tried = await Promise.all(Array.from({ length: STALLED - again.length }, () => stalledClient(gateway.address)));
      for (const s of tried) {
        if (s.status === 200) again.push(s);
        else s.socket.destroy();
      }
      if (again.length === STALLED || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(again.map((s) => s.status)).toEqual(Array(STALLED).fill(200));
    for (const s of [...stalled, ...again]) s.socket.destroy();

    let got = 0;
    for (;;) {
      const e = await reader.next(1).catch(() => undefined);
      if (!e) break;
      if (e.event === "top") got++;
    }
    expect(got).toBeGreaterThan(10); // the reading client kept receiving while the others stalled
    reader.close();
    expect(peak - before).toBeLessThan(GROWTH_BOUND);
  });
});
