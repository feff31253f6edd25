// LadderClient's calls against a grpc-js server in this process, behind a proxy that loses answers
// (fault-proxy.ts): the bearer token on every call, the event ids given once and resent unchanged by
// the retry of a batch whose answer was lost, writes not safe to retry tried once, deadlines; and TLS
// with a CA file (a certificate made by openssl for the test).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { create, type Message } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import {
  DeletePlayerResponseSchema,
  IngestService,
  SubmitScoresResponseSchema,
  type DeletePlayerRequest,
  type SubmitScoresRequest,
} from "@ladder/proto/leaderboard/v1/ingest_pb";
import { faultProxy, type FaultProxy } from "./fault-proxy.js";
import { serviceDefinition } from "./grpc-stub.js";
import { LadderClient } from "./ladder-client.js";
import type { RetryEvent } from "./retry.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Seen {
  method: string;
  authorization: unknown;
  /** SubmitScores: its updates' event ids; DeletePlayer: the player. */
  what: string[];
}

/** An IngestService that records each call and answers it; behind a fault proxy. */
async function ingest(credentials = grpc.ServerCredentials.createInsecure()): Promise<{ proxy: FaultProxy; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = new grpc.Server();
  const record = (method: string, call: grpc.ServerUnaryCall<unknown, unknown>, what: string[]) =>
    seen.push({ method, authorization: call.metadata.get("authorization")[0], what });
  server.addService(serviceDefinition(IngestService), {
    submitScores: (call: grpc.ServerUnaryCall<SubmitScoresRequest, Message>, done: grpc.sendUnaryData<Message>) => {
      record(
        "SubmitScores",
        call,
        call.request.updates.map((u) => u.eventId),
      );
      done(null, create(SubmitScoresResponseSchema, { accepted: call.request.updates.length }));
    },
    deletePlayer: (call: grpc.ServerUnaryCall<DeletePlayerRequest, Message>, done: grpc.sendUnaryData<Message>) => {
      record("DeletePlayer", call, [call.request.playerId]);
      done(null, create(DeletePlayerResponseSchema, {}));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (e, p) => (e ? reject(e) : resolve(p))),
  );
  const proxy = await faultProxy(`127.0.0.1:${port}`);
  cleanups.push(
    () => proxy.close(),
    () => server.forceShutdown(),
  );
  return { proxy, seen };
}

/** Loses the answers for `ms`, then cuts the connections (the calls in flight fail UNAVAILABLE). */
async function loseAnswers(proxy: FaultProxy, ms: number): Promise<void> {
  proxy.blackhole(true);
  await new Promise((r) => setTimeout(r, ms));
  proxy.cut();
  proxy.blackhole(false);
}

const updates = [
  { board: "b", playerId: "p1", op: Operation.INCREMENT, value: 1n },
  { board: "b", playerId: "p2", op: Operation.INCREMENT, value: 1n, eventId: "mine" },
];

describe("client > LadderClient", () => {
  it("resends a batch whose answer was lost with the same event ids, given before the first attempt", async () => {
    const { proxy, seen } = await ingest();
    const retries: RetryEvent[] = [];
    const client = new LadderClient({
      ingest: proxy.address,
      token: "t0k3n",
      retry: { maxAttempts: 20, initialBackoffMs: 1, maxBackoffMs: 20 },
      onRetry: (e) => retries.push(e),
    });
    cleanups.push(() => client.close());
    await client.ingest.submitScores({ updates: [] }).catch(() => {}); // connected before the answers are lost
    const answered = client.ingest.submitScores({ updates });
    await loseAnswers(proxy, 200);
    expect((await answered).accepted).toBe(2);
    const batches = seen.filter((s) => s.method === "SubmitScores" && s.what.length === 2);
    expect(batches.length).toBeGreaterThanOrEqual(2); // served once before the answer was lost, again on the retry
    expect(new Set(batches.map((b) => b.what.join(","))).size).toBe(1);
    expect(batches[0]!.what[1]).toBe("mine");
    expect(batches[0]!.what[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(retries.map((r) => [r.method, (r.error as { code: number }).code])).toContainEqual([
      "leaderboard.v1.IngestService/SubmitScores",
      grpc.status.UNAVAILABLE,
    ]);
    expect(seen.every((s) => s.authorization === "Bearer t0k3n")).toBe(true);
  });

  it("does not resend what may not be sent twice: DeletePlayer, a batch without event ids", async () => {
    const { proxy, seen } = await ingest();
    const retries: RetryEvent[] = [];
    const client = new LadderClient({
      ingest: proxy.address,
      assignEventIds: false,
      retry: { initialBackoffMs: 1, maxBackoffMs: 5 },
      onRetry: (e) => retries.push(e),
    });
    cleanups.push(() => client.close());
    const connected = async () => {
      while (
        !(await client.ingest.deletePlayer({ playerId: "warm-up" }).then(
          () => true,
          () => false,
        ))
      );
    };
    for (const call of [() => client.ingest.deletePlayer({ playerId: "p" }), () => client.ingest.submitScores({ updates })]) {
      await connected(); // the call reaches the server, whose answer is then lost
      const answered = call().then(
        () => "answered",
        (e: { code: number }) => grpc.status[e.code],
      );
      await loseAnswers(proxy, 200);
      expect(await answered).toBe("UNAVAILABLE");
    }
    expect(retries).toEqual([]);
    expect(seen.filter((s) => s.method === "SubmitScores").map((s) => s.what)).toEqual([["", "mine"]]); // served once, as given
    expect(seen.filter((s) => s.method === "DeletePlayer" && s.what[0] === "p")).toHaveLength(1); // served once
  });

  it("sends a call's own token instead of the client's, on every attempt; the client's otherwise, none without either", async () => {
    const { proxy, seen } = await ingest();
    const client = new LadderClient({
      ingest: proxy.address,
      token: "client-token",
      retry: { maxAttempts: 20, initialBackoffMs: 1, maxBackoffMs: 20 },
    });
    const anonymous = new LadderClient({ ingest: proxy.address });
    cleanups.push(
      () => client.close(),
      () => anonymous.close(),
    );
    await client.ingest.deletePlayer({ playerId: "own" }, { token: "caller-token" });
    await client.ingest.deletePlayer({ playerId: "client's" });
    await anonymous.ingest.deletePlayer({ playerId: "anonymous" });
    await anonymous.ingest.deletePlayer({ playerId: "anonymous, own" }, { token: "caller-token" });
    const retried = client.ingest.submitScores({ updates }, { token: "caller-token" });
    await loseAnswers(proxy, 200); // its first attempt's answer is lost: served again, with the same token
    await retried;
    expect(seen.filter((s) => s.method === "DeletePlayer").map((s) => [s.what[0], s.authorization])).toEqual([
      ["own", "Bearer caller-token"],
      ["client's", "Bearer client-token"],
      ["anonymous", undefined],
      ["anonymous, own", "Bearer caller-token"],
    ]);
    const batches = seen.filter((s) => s.method === "SubmitScores");
    expect(batches.length).toBeGreaterThanOrEqual(1);
    expect(batches.every((s) => s.authorization === "Bearer caller-token")).toBe(true);
  });

  it("ends a call at its deadline, its retries included", async () => {
    const { proxy } = await ingest();
    const client = new LadderClient({
      ingest: proxy.address,
      retry: { maxAttempts: 1_000, initialBackoffMs: 1, maxBackoffMs: 5, attemptTimeoutMs: 50 },
    });
    cleanups.push(() => client.close());
    proxy.blackhole(true);
    await expect(client.ingest.submitScores({ updates }, { timeoutMs: 400 })).rejects.toMatchObject({
      code: grpc.status.DEADLINE_EXCEEDED,
    });
    await expect(new LadderClient({ router: proxy.address }).ingest.submitScores({ updates })).rejects.toThrow(/no ingest address/);
  });

  it("speaks TLS trusting a CA file; a plaintext client gets no answer from it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ladder-client-tls-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "pipe" },
    );
    const { proxy, seen } = await ingest(
      grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(cert), private_key: readFileSync(key) }], false),
    );
    const tls = new LadderClient({ ingest: proxy.address, tls: { caFile: cert }, token: "t" });
    const plain = new LadderClient({ ingest: proxy.address, retry: false });
    cleanups.push(
      () => tls.close(),
      () => plain.close(),
    );
    expect((await tls.ingest.submitScores({ updates })).accepted).toBe(2);
    const code = await plain.ingest.submitScores({ updates }, { timeoutMs: 2_000 }).then(
      () => "answered",
      (e: { code: number }) => e.code,
    );
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(code);
    expect(seen.map((s) => s.authorization)).toEqual(["Bearer t"]);
  });
});
