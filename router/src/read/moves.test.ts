import { describe, expect, it } from "vitest";
import { Code, LadderError } from "@ladder/model/errors";
import type { CallContext } from "@ladder/platform/grpc-adapter";
import { StampMismatch } from "@ladder/store";
import { MOVE_WINDOW_MS, retryAcrossMoves } from "./moves.js";

const ctx = (deadlineMs = Number.POSITIVE_INFINITY): CallContext =>
  ({ metadata: undefined, deadlineMs, signal: new AbortController().signal, peer: "test" }) as unknown as CallContext;
const notServing = () => new LadderError(Code.UNAVAILABLE, "shard-1: not serving reads: catching up", { retriable: true });

/** A handler refused with `refusal()` its first `refusals` calls, then answering "ok"; `calls` counts. */
function flaky(refusals: number, refusal: () => Error = notServing) {
  const seen = { calls: 0 };
  const impl = {
    async read(_req: unknown, _ctx: CallContext) {
      seen.calls++;
      if (seen.calls <= refusals) throw refusal();
      return "ok";
    },
  };
  return { impl, seen };
}

describe("retryAcrossMoves", () => {
  it("tries a refused read again while this router runs a reshard, before it has read any new placement", async () => {
    const { impl, seen } = flaky(3);
    const read = retryAcrossMoves(impl, { epoch: 1, changedAt: 0, running: 1 });
    await expect(read.read({}, ctx())).resolves.toBe("ok");
    expect(seen.calls).toBe(4);
  });

  it("tries it again within the window after a new placement was read", async () => {
    const { impl, seen } = flaky(2);
    const read = retryAcrossMoves(impl, { epoch: 2, changedAt: performance.now(), running: 0 });
    await expect(read.read({}, ctx())).resolves.toBe("ok");
    expect(seen.calls).toBe(3);
  });

  it("refuses at once outside a move: no reshard running, no placement read, or the window past", async () => {
    for (const clock of [
      { epoch: 1, changedAt: 0, running: 0 },
      { epoch: 2, changedAt: performance.now() - MOVE_WINDOW_MS - 1_000, running: 0 },
    ]) {
      const { impl, seen } = flaky(1);
      await expect(retryAcrossMoves(impl, clock).read({}, ctx())).rejects.toThrow("not serving reads");
      expect(seen.calls).toBe(1);
    }
  });

  it("tries again a shard whose stamp differs only in its slots, move or not", async () => {
    const { impl, seen } = flaky(2, () => new StampMismatch("shard-1: built with other slots", ["slots"]));
    await expect(retryAcrossMoves(impl, { epoch: 1, changedAt: 0, running: 0 }).read({}, ctx())).resolves.toBe("ok");
    expect(seen.calls).toBe(3);
  });

  it("never tries again what a move does not cause, even during one", async () => {
    const { impl, seen } = flaky(1, () => new LadderError(Code.INVALID_ARGUMENT, "board: no such board"));
    await expect(retryAcrossMoves(impl, { epoch: 1, changedAt: 0, running: 1 }).read({}, ctx())).rejects.toThrow("no such board");
    expect(seen.calls).toBe(1);
  });

  it("refuses with the move named once the tries reach the call's deadline", async () => {
    const { impl, seen } = flaky(Number.POSITIVE_INFINITY);
    const read = retryAcrossMoves(impl, { epoch: 1, changedAt: 0, running: 1 });
    await expect(read.read({}, ctx(Date.now() + 300))).rejects.toThrow(/moving to placement epoch 1 .*refused after \d+ tries/);
    expect(seen.calls).toBeGreaterThan(1);
  });
});
