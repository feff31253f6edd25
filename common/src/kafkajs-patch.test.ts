// kafkajs 2.2.4's request queue re-armed a timer of negative delay after every request it
// fulfilled, so each broker connection checked its empty queue every millisecond forever (kafkajs
// issues #1556, #1604, #1704): most of an idle cluster's CPU. patches/kafkajs+2.2.4.patch (applied
// by patch-package on npm install) schedules a check only while requests are pending. These tests
// run the installed queue, so they fail where the patch is not applied.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const RequestQueue = require("kafkajs/src/network/requestQueue/index.js") as new (o: Record<string, unknown>) => {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
};
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const queue = () => new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: true, clientId: "test", broker: "127.0.0.1:1", logger: silent });

describe("kafkajs request queue (patched)", () => {
  it("arms no timer when nothing is pending, throttled or not", () => {
    const q = queue();
    q.checkPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.throttledUntil = Date.now() + 60_000;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it("still checks pending requests later: at the end of a throttle, or soon when not throttled", () => {
    const q = queue();
    q.pending.push({});
    q.throttledUntil = Date.now() + 60_000;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(q.throttleCheckTimeoutId!);
    q.throttleCheckTimeoutId = null;
    q.throttledUntil = -1;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(q.throttleCheckTimeoutId!);
  });
});
