// Malformed input at every rpc of the running cluster (3 shard nodes, router and ingest as real
// processes): thousands of requests built by fast-check (test/malformed-arbitraries.ts), each of
// which must get a clear gRPC error. Afterwards no process has exited, nothing reached the score
// log and the seeded boards read exactly as before. The seed is fixed and printed; set
// LADDER_FUZZ_SEED to replay a reported one or to try others.
import * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadConfig } from "@ladder/platform/config";
import { createClient, type ClientOf } from "@ladder/client/grpc-stub";
import { LogClient } from "@ladder/log/log-client";
import { silentLogger } from "@ladder/platform/logger";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation, type Entry } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { startTestCluster, TEST_TOKENS, type TestCluster } from "./cluster-harness.js";
import * as arb from "./malformed-arbitraries.js";

const SEED = Number(process.env.LADDER_FUZZ_SEED ?? 20_261_130);
const AT_ONCE = 16; // requests of one property run, sent concurrently
const CALL_TIMEOUT_MS = 15_000;
const SEED_BOARDS = ["malformed-seed", "malformed-seed:small"];
const PLAYERS = Array.from({ length: 300 }, (_, i) => `p-${i}`);

let cluster: TestCluster;
let logClient: LogClient;
let admin: ClientOf<typeof AdminService>;
let anonymous: {
  ingest: ClientOf<typeof IngestService>;
  router: ClientOf<typeof LeaderboardService>;
  admin: ClientOf<typeof AdminService>;
};
let raw: { ingest: RawClient; router: RawClient; admin: RawClient };
let before: { boards: Awaited<ReturnType<typeof readBoards>>; log: Record<number, string> };
let sent = 0;
let fuzzingSince = 0;

// ---- arbitraries over this cluster ---------------------------------------------------------

const spec = loadConfig({}).boards.forBoard("any");
const times: arb.TimeRange = { epochMs: spec.epochMs, horizonMs: spec.horizonMs, futureMs: Date.now() + 30 * 60_000 };
const boards = arb.validBoard(SEED_BOARDS);
const players = arb.validPlayer(PLAYERS);
const ghosts = arb.validPlayer(["ghost"]).filter((p) => !PLAYERS.includes(p));
const validUpdate = arb.validUpdate(boards, players, times);
const slots = () => Number(cluster.services.env.LADDER_SLOTS);

// ---- calls and outcomes --------------------------------------------------------------------

interface Outcome {
  code: string;
  details: string;
  /** Messages a stream sent before its status. */
  messages?: number;
}

/** The status of a unary call, by name (OK when it succeeded). */
function outcome(call: Promise<unknown>): Promise<Outcome> {
  sent++;
  return call.then(
    () => ({ code: "OK", details: "" }),
    (err: unknown) => {
      if (typeof (err as grpc.ServiceError).code !== "number") throw err;
      return { code: status[(err as grpc.ServiceError).code], details: (err as grpc.ServiceError).details };
    },
  );
}

/** The status of a server-streaming call, and how many messages came before it. */
function streamOutcome(stream: grpc.ClientReadableStream<unknown>): Promise<Outcome> {
  sent++;
  return new Promise((resolve) => {
    let messages = 0;
    stream.on("data", () => messages++);
    stream.on("error", () => {}); // the status carries it
    stream.on("status", (s: grpc.StatusObject) => resolve({ code: status[s.code], details: s.details, messages }));
  });
}

const withAuth = (header: string | undefined) => {
  const metadata = new grpc.Metadata();
  if (header !== undefined) metadata.set("authorization", header);
  return { metadata, timeoutMs: CALL_TIMEOUT_MS };
};
const bearer = (token: string) => `Bearer ${token}`;

type RawClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** A client of `service` whose requests are bytes sent as they are. */
function rawClient(address: string, service: string, methods: Record<string, boolean>): RawClient {
  const identity = (b: Buffer) => b;
  const definition = Object.fromEntries(
    Object.entries(methods).map(([name, streaming]) => [
      name,
      {
        path: `/${service}/${name}`,
        requestStream: false,
        responseStream: streaming,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    ]),
  );
  const Ctor = grpc.makeGenericClientConstructor(definition, service);
  return new Ctor(address, grpc.credentials.createInsecure()) as RawClient;
}

function sendRaw(client: RawClient, method: string, bytes: Buffer, header: string | undefined): Promise<Outcome> {
  const { metadata } = withAuth(header);
  const options = { deadline: Date.now() + CALL_TIMEOUT_MS };
  return outcome(
    new Promise((resolve, reject) =>
      client[method]!(bytes, metadata, options, (err: Error | null) => (err ? reject(err) : resolve(undefined))),
    ),
  );
}

function sendRead(read: arb.Read, header = bearer(TEST_TOKENS.read), client = cluster.router): Promise<Outcome> {
  const opts = withAuth(header);
  switch (read.rpc) {
    case "getTop":
      return outcome(client.getTop(read.req, opts));
    case "getRank":
      return outcome(client.getRank(read.req, opts));
    case "getAround":
      return outcome(client.getAround(read.req, opts));
  }
}

/** Runs `one` on AT_ONCE-sized groups of `items`, `runs` times, from the fixed seed. */
async function forAll<T>(items: fc.Arbitrary<T>, runs: number, one: (item: T) => Promise<void>): Promise<void> {
  const property = fc.asyncProperty(fc.array(items, { minLength: 1, maxLength: AT_ONCE }), async (group) => {
    await Promise.all(group.map(one));
  });
  await fc.assert(property, { seed: SEED, numRuns: runs });
}

// ---- the state that must not change ----------------------------------------------------------

async function readBoards(): Promise<Record<string, { total: bigint; entries: Entry[] }>> {
  const out: Record<string, { total: bigint; entries: Entry[] }> = {};
  for (const board of SEED_BOARDS) {
    const entries: Entry[] = [];
    let total = 0n;
    for (let offset = 0n; ; offset += 100n) {
      const page = await cluster.router.getTop({ board, limit: 100, offset });
      total = page.total;
      entries.push(...page.entries);
      if (page.entries.length < 100) break;
    }
    out[board] = { total, entries };
  }
  return out;
}

/** The score topic's end offset per partition. */
async function logEnd(): Promise<Record<number, string>> {
  return Object.fromEntries([...(await logClient.endOffsetsOnce(cluster.ns.topic))].map(([partition, high]) => [partition, String(high)]));
}

function exitedServices(): string[] {
  const s = cluster.services;
  const all = [...s.shardIds.map((id) => [id, s.shardNode(id)] as const), ["router", s.router()] as const, ["ingest", s.ingest()] as const];
  return all.filter(([, p]) => p.hasExited()).map(([name]) => name);
}

async function expectNothingChanged(): Promise<void> {
  expect(exitedServices()).toEqual([]);
  expect(await logEnd()).toEqual(before.log);
}

beforeAll(async () => {
  console.log(`malformed input: fast-check seed ${SEED} (LADDER_FUZZ_SEED=${SEED} replays it)`);
  cluster = await startTestCluster("malformed");
  const { ingestAddress, routerAddress } = cluster.services;
  logClient = await LogClient.open(inject("kafkaBrokers"), "malformed-test", silentLogger());
  admin = createClient(AdminService, routerAddress, undefined, {}, TEST_TOKENS.admin);
  anonymous = {
    ingest: createClient(IngestService, ingestAddress),
    router: createClient(LeaderboardService, routerAddress),
    admin: createClient(AdminService, routerAddress),
  };
  raw = {
    ingest: rawClient(ingestAddress, IngestService.typeName, { SubmitScores: false }),
    router: rawClient(routerAddress, LeaderboardService.typeName, { GetTop: false, GetRank: false, GetAround: false }),
    admin: rawClient(routerAddress, AdminService.typeName, { RebuildShards: true, GetClusterStatus: false, Reshard: true }),
  };
  // a small known board: 300 players with many ties, and a second board of 40
  const t0 = Date.now() - 3_600_000;
  const res = await cluster.ingest.submitScores({
    updates: [
      ...PLAYERS.map((playerId, i) => ({
        board: SEED_BOARDS[0]!,
        playerId,
        op: Operation.SET,
        value: BigInt((i * 7919) % 200),
        timestampMs: BigInt(t0 + (i % 7) * 60_000),
      })),
      ...PLAYERS.slice(0, 40).map((playerId, i) => ({ board: SEED_BOARDS[1]!, playerId, op: Operation.BEST, value: BigInt(i % 5) })),
    ],
  });
  await cluster.waitApplied(res.offsets);
  before = { boards: await readBoards(), log: await logEnd() };
  expect(before.boards[SEED_BOARDS[0]!]!.total).toBe(300n);
  fuzzingSince = Date.now();
}, 120_000);

afterAll(async () => {
  console.log(`malformed input: ${sent} requests in ${((Date.now() - fuzzingSince) / 1000).toFixed(1)} s, seed ${SEED}`);
  for (const c of [admin, anonymous?.ingest, anonymous?.router, anonymous?.admin]) c?.close();
  for (const c of Object.values(raw ?? {})) c.close();
  await logClient?.close();
  await cluster?.stop();
});

// ---- what each malformed request must get ----------------------------------------------------

async function checkBadBatch({ updates, details, words }: arb.BadBatch): Promise<void> {
  const o = await outcome(cluster.ingest.submitScores({ updates }, { timeoutMs: CALL_TIMEOUT_MS }));
  expect(o).toMatchObject({ code: "INVALID_ARGUMENT", details: expect.stringMatching(details) });
  if (words.length)
    expect(
      words.some((w) => w.test(o.details.replace(details, ""))),
      `"${o.details}" names none of the defects`,
    ).toBe(true);
}

async function checkRawSubmit({ bytes, undecodable }: arb.RawPayload): Promise<void> {
  const o = await sendRaw(raw.ingest, "SubmitScores", bytes, bearer(TEST_TOKENS.write));
  expect(o).toMatchObject({ code: "INVALID_ARGUMENT" });
  if (undecodable) expect(o.details).toMatch(/^request is not a valid leaderboard\.v1\.SubmitScoresRequest: /);
}

async function checkBadRead({ read, words }: arb.BadRead): Promise<void> {
  const o = await sendRead(read);
  expect(o).toMatchObject({ code: "INVALID_ARGUMENT" });
  expect(
    words.some((w) => w.test(o.details)),
    `"${o.details}" names none of the bad fields`,
  ).toBe(true);
}

async function checkRawRead({ method, bytes }: { method: string; bytes: Buffer }): Promise<void> {
  const o = await sendRaw(raw.router, method, bytes, undefined);
  expect(o).toMatchObject({
    code: "INVALID_ARGUMENT",
    details: expect.stringMatching(`^request is not a valid leaderboard\\.v1\\.${method}Request: `),
  });
}

async function checkBadRebuild({ req, code, details }: arb.BadRebuild): Promise<void> {
  const o = await streamOutcome(admin.rebuildShards(req, { timeoutMs: CALL_TIMEOUT_MS }));
  expect(o).toMatchObject({ code, details: expect.stringMatching(details), messages: 0 });
}

async function checkRawRebuild(bytes: Buffer): Promise<void> {
  const options = { deadline: Date.now() + CALL_TIMEOUT_MS };
  const o = await streamOutcome(
    raw.admin.RebuildShards!(bytes, withAuth(bearer(TEST_TOKENS.admin)).metadata, options) as grpc.ClientReadableStream<unknown>,
  );
  expect(o).toMatchObject({
    code: "INVALID_ARGUMENT",
    details: expect.stringMatching(/^request is not a valid leaderboard\.v1\.RebuildShardsRequest: /),
    messages: 0,
  });
}

async function checkClusterStatus({ shardIds, unknown }: { shardIds: string[]; unknown: boolean }): Promise<void> {
  if (unknown) {
    expect(await outcome(admin.getClusterStatus({ shardIds }, { timeoutMs: CALL_TIMEOUT_MS }))).toMatchObject({
      code: "NOT_FOUND",
      details: expect.stringMatching(/^no shard "/),
    });
    return;
  }
  sent++;
  const res = await admin.getClusterStatus({ shardIds }, { timeoutMs: CALL_TIMEOUT_MS });
  expect(res.shards.map((s) => s.shardId)).toEqual(shardIds.length ? shardIds : cluster.services.shardIds);
}

async function checkRawClusterStatus(bytes: Buffer): Promise<void> {
  const o = await sendRaw(raw.admin, "GetClusterStatus", bytes, bearer(TEST_TOKENS.admin));
  expect(o).toMatchObject({
    code: "INVALID_ARGUMENT",
    details: expect.stringMatching(/^request is not a valid leaderboard\.v1\.GetClusterStatusRequest: /),
  });
}

describe("malformed input", () => {
  describe("submit scores", () => {
    it("rejects a batch with a bad update at a random index, an empty or an oversized batch with INVALID_ARGUMENT naming it, writing nothing", async () => {
      await forAll(arb.badBatch(validUpdate, times), 200, checkBadBatch);
      await expectNothingChanged();
    });

    it("rejects bytes that are not a SubmitScoresRequest, or hold invalid UTF-8, with INVALID_ARGUMENT", async () => {
      await forAll(arb.rawSubmitScores(validUpdate), 200, checkRawSubmit);
      await expectNothingChanged();
    });

    it("refuses callers without a write token with UNAUTHENTICATED, valid batches included", async () => {
      // ingest holds the writers' tokens alone (least privilege): any other, the cluster's read, admin and
      // monitor tokens included, is unknown there
      const caller = fc.oneof(
        arb.unknownCredential(Object.values(TEST_TOKENS)).map((header) => ({ header, code: "UNAUTHENTICATED" })),
        fc
          .constantFrom(TEST_TOKENS.read, TEST_TOKENS.admin, TEST_TOKENS.monitor)
          .map((t) => ({ header: bearer(t), code: "UNAUTHENTICATED" })),
      );
      const batch = fc.oneof(
        fc.array(validUpdate, { minLength: 1, maxLength: 5 }),
        arb.badBatch(validUpdate, times).map((b) => b.updates),
      );
      await forAll(fc.tuple(caller, batch), 100, async ([{ header, code }, updates]) => {
        expect(await outcome(anonymous.ingest.submitScores({ updates }, withAuth(header)))).toMatchObject({ code });
        expect(await sendRaw(raw.ingest, "SubmitScores", Buffer.from([0xff]), header)).toMatchObject({ code });
      });
      await expectNothingChanged();
    });
  });

  describe("reads", () => {
    it("rejects bad boards, players, limits, offsets, radii, consistency tokens and views with INVALID_ARGUMENT", async () => {
      await forAll(arb.badRead(boards, players, slots()), 200, checkBadRead);
    });

    it("answers well-formed players without a score with NOT_FOUND", async () => {
      await forAll(arb.unknownPlayerRead(boards, ghosts), 100, async (read) => {
        // asked again while refused UNAVAILABLE with a reason (a shard node that missed its heartbeat on a
        // busy machine: docs/guarantees.md), as cluster-harness.ts's served() does: a refusal is no answer
        let got = await sendRead(read);
        for (const from = Date.now(); got.code === "UNAVAILABLE" && got.details && Date.now() - from < 30_000; ) {
          await new Promise((r) => setTimeout(r, 100));
          got = await sendRead(read);
        }
        expect(got).toMatchObject({ code: "NOT_FOUND" });
      });
    });

    it("rejects undecodable bytes and invalid UTF-8 with INVALID_ARGUMENT, and answers random bytes without a server error", async () => {
      await forAll(arb.rawRead(arb.validRead(boards, players)), 150, checkRawRead);
      const randomBytes = fc.tuple(fc.constantFrom("GetTop", "GetRank", "GetAround"), fc.uint8Array({ maxLength: 200 }));
      await forAll(randomBytes, 60, async ([method, bytes]) => {
        expect(["OK", "INVALID_ARGUMENT", "NOT_FOUND"]).toContain((await sendRaw(raw.router, method, Buffer.from(bytes), undefined)).code);
      });
    });

    it("refuses unknown bearer tokens with UNAUTHENTICATED", async () => {
      // reads are open: no header is fine, and grpc-js drops values with spaces at either end
      const header = arb.unknownCredential(Object.values(TEST_TOKENS)).filter((h) => h !== undefined && h === h.trim());
      const read = fc.oneof(
        arb.validRead(boards, players),
        arb.badRead(boards, players, slots()).map((b) => b.read),
      );
      await forAll(fc.tuple(header, read), 80, async ([h, r]) => {
        expect(await sendRead(r, h, anonymous.router)).toMatchObject({ code: "UNAUTHENTICATED" });
      });
    });
  });

  describe("rebuild shards", () => {
    it("answers unknown shards with NOT_FOUND and bad views or cut-offs with INVALID_ARGUMENT, rebuilding nothing", async () => {
      await forAll(arb.badRebuild(cluster.services.shardIds, slots()), 80, checkBadRebuild);
    });

    it("refuses callers without an admin token with UNAUTHENTICATED or PERMISSION_DENIED", async () => {
      const caller = fc.oneof(
        arb.unknownCredential(Object.values(TEST_TOKENS)).map((header) => ({ header, code: "UNAUTHENTICATED" })),
        fc.constantFrom(TEST_TOKENS.read, TEST_TOKENS.write).map((t) => ({ header: bearer(t), code: "PERMISSION_DENIED" })),
      );
      await forAll(fc.tuple(caller, arb.badRebuild(cluster.services.shardIds, slots())), 60, async ([{ header, code }, { req }]) => {
        expect(await streamOutcome(anonymous.admin.rebuildShards(req, withAuth(header)))).toMatchObject({ code, messages: 0 });
      });
    });

    it("rejects undecodable bytes and invalid UTF-8 with INVALID_ARGUMENT", async () => {
      await forAll(arb.rawRebuild, 60, checkRawRebuild);
    });
  });

  describe("reshard", () => {
    it("refuses a change that makes no sense with INVALID_ARGUMENT naming it, and moves nothing", async () => {
      await forAll(arb.badReshard(cluster.services.shardIds), 80, async ({ req, words }) => {
        const o = await streamOutcome(admin.reshard(req, { timeoutMs: CALL_TIMEOUT_MS }));
        expect(o).toMatchObject({ code: "INVALID_ARGUMENT", messages: 0 });
        expect(o.details).toMatch(words);
      });
      expect(Number((await admin.getPlacement({})).epoch)).toBe(1);
    });

    it("refuses callers without an admin token with UNAUTHENTICATED or PERMISSION_DENIED", async () => {
      const caller = fc.oneof(
        arb.unknownCredential(Object.values(TEST_TOKENS)).map((header) => ({ header, code: "UNAUTHENTICATED" })),
        fc.constantFrom(TEST_TOKENS.read, TEST_TOKENS.write).map((t) => ({ header: bearer(t), code: "PERMISSION_DENIED" })),
      );
      await forAll(fc.tuple(caller, arb.badReshard(cluster.services.shardIds)), 40, async ([{ header, code }, { req }]) => {
        expect(await streamOutcome(anonymous.admin.reshard(req, withAuth(header)))).toMatchObject({ code, messages: 0 });
        expect(await outcome(anonymous.admin.getPlacement({}, withAuth(header)))).toMatchObject({ code });
      });
    });

    it("rejects undecodable bytes and invalid UTF-8 with INVALID_ARGUMENT", async () => {
      await forAll(arb.rawReshard, 40, async (bytes) => {
        const options = { deadline: Date.now() + CALL_TIMEOUT_MS };
        const o = await streamOutcome(
          raw.admin.Reshard!(bytes, withAuth(bearer(TEST_TOKENS.admin)).metadata, options) as grpc.ClientReadableStream<unknown>,
        );
        expect(o).toMatchObject({
          code: "INVALID_ARGUMENT",
          details: expect.stringMatching(/^request is not a valid leaderboard\.v1\.ReshardRequest: /),
          messages: 0,
        });
      });
      expect(Number((await admin.getPlacement({})).epoch)).toBe(1);
    });
  });

  describe("cluster status", () => {
    it("answers known shards in the order asked and refuses an unknown one with NOT_FOUND", async () => {
      await forAll(arb.clusterStatusRequest(cluster.services.shardIds), 60, checkClusterStatus);
    });

    it("refuses callers without an admin token with UNAUTHENTICATED or PERMISSION_DENIED", async () => {
      const caller = fc.oneof(
        arb.unknownCredential(Object.values(TEST_TOKENS)).map((header) => ({ header, code: "UNAUTHENTICATED" })),
        fc.constantFrom(TEST_TOKENS.read, TEST_TOKENS.write).map((t) => ({ header: bearer(t), code: "PERMISSION_DENIED" })),
      );
      await forAll(fc.tuple(caller, arb.clusterStatusRequest(cluster.services.shardIds)), 60, async ([{ header, code }, { shardIds }]) => {
        expect(await outcome(anonymous.admin.getClusterStatus({ shardIds }, withAuth(header)))).toMatchObject({ code });
      });
    });

    it("rejects undecodable bytes and invalid UTF-8 with INVALID_ARGUMENT", async () => {
      await forAll(arb.rawClusterStatus, 60, checkRawClusterStatus);
      await expectNothingChanged();
    });
  });

  it("answers a burst of 440 malformed requests to every rpc at once", async () => {
    const sample = <T>(a: fc.Arbitrary<T>, check: (x: T) => Promise<void>) =>
      fc.sample(a, { seed: SEED, numRuns: 80 }).map(
        (x) => () =>
          check(x).catch((err: Error) => {
            throw new Error(`${err.message}\nrequest: ${fc.stringify(x).slice(0, 2000)}`, { cause: err });
          }),
      );
    const jobs = [
      ...sample(arb.badBatch(validUpdate, times), checkBadBatch),
      ...sample(arb.rawSubmitScores(validUpdate), checkRawSubmit),
      ...sample(arb.badRead(boards, players, slots()), checkBadRead),
      ...sample(arb.rawRead(arb.validRead(boards, players)), checkRawRead),
      ...sample(arb.badRebuild(cluster.services.shardIds, slots()), checkBadRebuild).slice(0, 40),
      ...sample(arb.rawRebuild, checkRawRebuild).slice(0, 40),
      ...sample(
        arb.clusterStatusRequest(cluster.services.shardIds).filter((r) => r.unknown),
        checkClusterStatus,
      ).slice(0, 20),
      ...sample(arb.rawClusterStatus, checkRawClusterStatus).slice(0, 20),
    ];
    await Promise.all(jobs.map((job) => job()));
  });

  it("leaves the boards, the score log and all five processes as they were", async () => {
    await expectNothingChanged();
    expect(await readBoards()).toEqual(before.boards);
  });
});
