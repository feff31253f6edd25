import { Metadata, status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { retryPolicy } from "./backoff.js";
import { isRetriedError, mayRetry, retryAfterMs, retrySafety, withRetries, type RetryEvent } from "./retry.js";

const grpcError = (code: status) => Object.assign(new Error(`${code} ${status[code]}`), { code, details: status[code] });
const fast = retryPolicy({ maxAttempts: 4, initialBackoffMs: 1, maxBackoffMs: 2 });
const NEVER = [
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.FAILED_PRECONDITION,
  status.PERMISSION_DENIED,
  status.UNAUTHENTICATED,
  status.ALREADY_EXISTS,
  status.ABORTED,
  status.CANCELLED,
  status.RESOURCE_EXHAUSTED,
  status.INTERNAL,
  status.UNKNOWN,
];

/** An attempt that fails with `codes` in turn, then answers "ok"; counts its calls. */
function attempts(...codes: status[]) {
  const calls: number[] = [];
  const fn = async (deadline: number) => {
    calls.push(deadline);
    const code = codes[calls.length - 1];
    if (code !== undefined) throw grpcError(code);
    return "ok";
  };
  return { fn, calls };
}

describe("client > retry classification", () => {
  it("retries every read, SubmitScores only when every update has an event id, and no other write", () => {
    // every unary read; the watch streams are not retried but resumed (server-stream.ts, resume_token)
    for (const m of LeaderboardService.methods) expect(retrySafety(m)).toBe(m.methodKind === "unary" ? "read" : "never");
    const admin = Object.fromEntries(AdminService.methods.map((m) => [m.name, retrySafety(m)]));
    expect(admin).toEqual({
      RebuildShards: "never",
      ListRebuilds: "read",
      CreateBoard: "never",
      GetBoard: "read",
      ListBoards: "read",
      UpdateBoard: "never",
      DeleteBoard: "never",
      ListCloses: "read",
      GetClusterStatus: "read",
      Reshard: "never",
      GetPlacement: "read",
      HidePlayer: "never",
      UnhidePlayer: "never",
      DeleteEntry: "never",
      WipeBoard: "never",
      ListModerationActions: "read",
      ExportPlayerData: "read",
      HideAboveCeiling: "never",
    });
    const submit = IngestService.method.submitScores;
    const u = (eventId: string) => ({ board: "b", playerId: "p", op: Operation.SET, value: 1n, eventId });
    expect(mayRetry(submit, { updates: [u("e1"), u("e2")] })).toBe(true);
    expect(mayRetry(submit, { updates: [u("e1"), u("")] })).toBe(false);
    expect(mayRetry(IngestService.method.deletePlayer, { playerId: "p", boards: [] })).toBe(false);
    expect(mayRetry(LeaderboardService.method.getTop, { board: "b" })).toBe(true);
  });

  it("retries UNAVAILABLE and DEADLINE_EXCEEDED only", () => {
    expect(isRetriedError(grpcError(status.UNAVAILABLE))).toBe(true);
    expect(isRetriedError(grpcError(status.DEADLINE_EXCEEDED))).toBe(true);
    for (const code of NEVER) expect(isRetriedError(grpcError(code)), status[code]).toBe(false);
    expect(isRetriedError(new Error("not a gRPC status"))).toBe(false);
    const withTrailer = Object.assign(grpcError(status.RESOURCE_EXHAUSTED), { metadata: new Metadata() });
    expect(isRetriedError(withTrailer)).toBe(false); // no retry-after-ms: a limit waiting does not lift
    withTrailer.metadata.set("retry-after-ms", "40");
    expect(isRetriedError(withTrailer)).toBe(true);
    expect(retryAfterMs(withTrailer)).toBe(40);
  });
});

describe("client > retry loop", () => {
  it("retries until an attempt answers, telling onRetry each time", async () => {
    const a = attempts(status.UNAVAILABLE, status.DEADLINE_EXCEEDED);
    const seen: RetryEvent[] = [];
    await expect(
      withRetries(a.fn, { policy: fast, deadline: Date.now() + 10_000, method: "m", onRetry: (e) => seen.push(e) }),
    ).resolves.toBe("ok");
    expect(a.calls).toHaveLength(3);
    expect(seen.map((e) => [e.attempt, (e.error as { code: number }).code])).toEqual([
      [1, status.UNAVAILABLE],
      [2, status.DEADLINE_EXCEEDED],
    ]);
    for (const e of seen) expect(e.delayMs).toBeLessThanOrEqual(2);
  });

  it("retries RESOURCE_EXHAUSTED with retry-after-ms after at least that pause", async () => {
    let calls = 0;
    const fn = async () => {
      if (calls++ === 0) {
        const metadata = new Metadata();
        metadata.set("retry-after-ms", "30");
        throw Object.assign(grpcError(status.RESOURCE_EXHAUSTED), { metadata });
      }
      return "ok";
    };
    const seen: RetryEvent[] = [];
    await expect(withRetries(fn, { policy: fast, deadline: Date.now() + 10_000, method: "m", onRetry: (e) => seen.push(e) })).resolves.toBe(
      "ok",
    );
    expect(calls).toBe(2);
    expect(seen.map((e) => e.delayMs)).toEqual([30]);
  });

  it("surfaces a code that is never retried at once", async () => {
    for (const code of NEVER) {
      const a = attempts(code);
      await expect(withRetries(a.fn, { policy: fast, deadline: Date.now() + 10_000, method: "m" })).rejects.toMatchObject({ code });
      expect(a.calls, status[code]).toHaveLength(1);
    }
  });

  it("stops after maxAttempts with the last attempt's error", async () => {
    const a = attempts(status.UNAVAILABLE, status.UNAVAILABLE, status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.UNAVAILABLE);
    await expect(withRetries(a.fn, { policy: fast, deadline: Date.now() + 10_000, method: "m" })).rejects.toMatchObject({
      code: status.DEADLINE_EXCEEDED,
    });
    expect(a.calls).toHaveLength(4);
  });

  it("does not retry when the pause would end past the call's deadline, and bounds each attempt", async () => {
    const slow = retryPolicy({ maxAttempts: 10, initialBackoffMs: 60_000, maxBackoffMs: 60_000, attemptTimeoutMs: 500 });
    const a = attempts(status.UNAVAILABLE);
    const deadline = Date.now() + 5_000;
    await expect(withRetries(a.fn, { policy: slow, deadline, method: "m", random: () => 0.99 })).rejects.toMatchObject({
      code: status.UNAVAILABLE,
    });
    expect(a.calls).toHaveLength(1);
    expect(a.calls[0]!).toBeLessThan(deadline); // the attempt's own deadline: now + 500 ms, before the call's
    const b = attempts();
    await withRetries(b.fn, { policy: fast, deadline: 1234, method: "m" });
    expect(b.calls).toEqual([1234]); // an attempt never outlives the call's deadline
  });

  it("stops retrying once the signal aborts", async () => {
    const stop = new AbortController();
    const a = attempts(status.UNAVAILABLE, status.UNAVAILABLE);
    const policy = retryPolicy({ maxAttempts: 5, initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    const running = withRetries(a.fn, {
      policy,
      deadline: Infinity,
      method: "m",
      signal: stop.signal,
      random: () => 0.5,
      onRetry: () => stop.abort(new Error("left")),
    });
    await expect(running).rejects.toThrow("left");
    expect(a.calls).toHaveLength(1);
  });
});
