import { describe, expect, it } from "vitest";
import { DEFAULT_RESTART_POLICY, RestartBackoff } from "./restart-policy.js";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("deploy > restart policy", () => {
  it("waits 1 s after a first death, doubling while the process keeps dying soon, up to 30 s", () => {
    const c = clock();
    const b = new RestartBackoff(DEFAULT_RESTART_POLICY, c.now);
    b.up();
    const pauses: number[] = [];
    for (let i = 0; i < 8; i++) {
      c.advance(5_000); // up 5 s each time: not healthy
      pauses.push(b.died());
      c.advance(pauses.at(-1)!);
      b.up();
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it("starts from the first pause again once the process stayed up long enough", () => {
    const c = clock();
    const policy = { initialMs: 10, maxMs: 80, healthyAfterMs: 1_000 };
    const b = new RestartBackoff(policy, c.now);
    b.up();
    c.advance(1);
    expect([b.died(), b.startFailed(), b.startFailed()]).toEqual([10, 20, 40]);
    b.up();
    c.advance(999); // not quite healthy
    expect(b.died()).toBe(80);
    b.up();
    c.advance(1_000); // healthy
    expect(b.died()).toBe(10);
    b.up();
    c.advance(10);
    expect(b.died()).toBe(20);
  });

  it("counts failed starts like deaths", () => {
    const b = new RestartBackoff({ initialMs: 1, maxMs: 5, healthyAfterMs: 0 }, clock().now);
    expect([b.startFailed(), b.startFailed(), b.startFailed(), b.startFailed()]).toEqual([1, 2, 4, 5]);
  });

  it("refuses a policy that cannot work", () => {
    expect(() => new RestartBackoff({ initialMs: 0, maxMs: 10, healthyAfterMs: 0 })).toThrow(/initialMs/);
    expect(() => new RestartBackoff({ initialMs: 20, maxMs: 10, healthyAfterMs: 0 })).toThrow(/initialMs/);
  });
});
