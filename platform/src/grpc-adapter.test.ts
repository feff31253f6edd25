// The adapter on a real grpc-js server in this process: call metadata above MAX_METADATA_BYTES is
// refused naming the limit, and a server stream's context counts what a caller that does not read
// leaves unsent (a raw HTTP/2 client, paused), and a stream failing with RESOURCE_EXHAUSTED with
// messages unsent is reset at once (the check that grpc-js's internals still hold the HTTP/2 stream
// where http2StreamOf finds it).
import * as http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { Code, LadderError } from "@ladder/model/errors";
import { LeaderboardService, WatchTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { addService, grpcServerMetrics, listen, MAX_METADATA_BYTES, type ServiceImpl, type StreamContext } from "./grpc-adapter.js";
import { silentLogger } from "./logger.js";

const server = new grpc.Server();
const unsentTotal = async () => (await grpcServerMetrics().unsent.get()).values[0]?.value ?? 0;
let port = 0;
let client: ClientOf<typeof LeaderboardService>;
/** What the last WatchTop saw of its caller, and how it ended. */
const watch = { unsentBytes: 0, drained: undefined as boolean | undefined };

beforeAll(async () => {
  const unimplemented = () => Promise.reject(new LadderError(Code.UNIMPLEMENTED, "not in this test"));
  const impl = Object.fromEntries(LeaderboardService.methods.map((m) => [m.localName, unimplemented])) as unknown as ServiceImpl<
    (typeof LeaderboardService)["method"]
  >;
  impl.getTop = async () => ({ entries: [], total: 0n });
  impl.watchTop = async (_req, send, ctx: StreamContext) => {
    // 20 messages of 10 KB: beyond the caller's 64 KB window when it does not read
    for (let i = 0; i < 20; i++) send({ entries: [{ playerId: "p".repeat(10_000) }], sequence: BigInt(i) });
    watch.drained = await ctx.drained(0, 300);
    watch.unsentBytes = ctx.unsentBytes;
    if (!watch.drained) throw new LadderError(Code.RESOURCE_EXHAUSTED, `stream stalled: ${ctx.unsentBytes} bytes unread`);
  };
  addService(server, LeaderboardService, impl, silentLogger());
  port = await listen(server, "127.0.0.1:0");
  client = createClient(LeaderboardService, `127.0.0.1:${port}`);
});
afterAll(() => {
  client.close();
  server.forceShutdown();
});

describe("platform > grpc adapter", () => {
  it("refuses call metadata above MAX_METADATA_BYTES with RESOURCE_EXHAUSTED naming the limit", async () => {
    const over = new grpc.Metadata();
    over.set("x-big", "y".repeat(MAX_METADATA_BYTES));
    const err = await client.getTop({ board: "b" }, { metadata: over }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err?.details).toMatch(new RegExp(`above the limit of ${MAX_METADATA_BYTES} bytes`));
    const within = new grpc.Metadata();
    within.set("x-big", "y".repeat(MAX_METADATA_BYTES - 100));
    expect(await client.getTop({ board: "b" }, { metadata: within })).toMatchObject({ total: 0n });
  });

  it("counts what a caller that does not read leaves unsent, and resets a stream that fails with RESOURCE_EXHAUSTED meanwhile", async () => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => {});
    const stream = session.request({
      ":method": "POST",
      ":path": "/leaderboard.v1.LeaderboardService/WatchTop",
      "content-type": "application/grpc",
      te: "trailers",
    });
    const body = toBinary(WatchTopRequestSchema, create(WatchTopRequestSchema, { board: "b" }));
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    stream.end(frame);
    stream.once("response", () => stream.pause());
    stream.on("error", () => {});
    const rst = await new Promise<number | undefined>((resolve) => stream.once("close", () => resolve(stream.rstCode)));
    session.destroy();
    expect(watch.drained).toBe(false);
    expect(watch.unsentBytes).toBeGreaterThan(64 * 1024);
    expect(rst).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    // what it held unsent is taken off the process's total once it is gone
    for (let i = 0; i < 50 && (await unsentTotal()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await unsentTotal()).toBe(0);
  });

  it("drains for a caller that reads", async () => {
    const got: unknown[] = [];
    const stream = client.watchTop({ board: "b" });
    await new Promise<void>((resolve) => {
      stream.on("data", (m) => got.push(m));
      stream.on("end", resolve);
      stream.on("error", resolve);
    });
    expect(got.length).toBe(20);
    expect(watch.drained).toBe(true);
    expect(watch.unsentBytes).toBe(0);
  });
});
