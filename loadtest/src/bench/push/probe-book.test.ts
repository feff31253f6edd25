import { describe, expect, it } from "vitest";
import { ProbeBook, type Probe } from "./probe-book.js";

const own = (watched: string, score: number, sentAt: number): Probe => ({ kind: "own", watched, score, sentAt });
const overtake = (watched: string, other: string, sentAt: number): Probe => ({ kind: "overtake", watched, other, sentAt });
const msg = (score: number | undefined, overtakenBy: string[] = []) => ({ score, overtakenBy });

describe("bench > push > probe book", () => {
  it("ends an own-score probe at the first message with the new score, measured from the acknowledgement", () => {
    const book = new ProbeBook();
    const p = own("p:1", 120, 1000);
    book.add(p);
    book.acked(p, 1010);
    book.onMessage("p:1", msg(100), 1020); // an older score: not it
    book.onMessage("p:2", msg(120), 1030); // another stream
    expect(book.samples).toEqual([]);
    book.onMessage("p:1", msg(120), 1150);
    book.onMessage("p:1", msg(120), 1400); // a later message showing the same score changes nothing
    expect(book.samples).toEqual([{ kind: "own", fromAckMs: 140, sentAt: 1000 }]);
    expect(book.pending).toBe(0);
    expect(book.busy("p:1")).toBe(false);
  });

  it("keeps a message that came before the acknowledgement, the latency from it negative", () => {
    const book = new ProbeBook();
    const p = own("p:1", 7, 0);
    book.add(p);
    book.onMessage("p:1", msg(7), 40);
    expect(book.samples).toEqual([]);
    book.acked(p, 55);
    expect(book.samples).toEqual([{ kind: "own", fromAckMs: -15, sentAt: 0 }]);
  });

  it("ends an overtake at the first message whose OVERTAKEN events name the other player, both players busy until then", () => {
    const book = new ProbeBook();
    const p = overtake("p:1", "p:9", 0);
    book.add(p);
    book.acked(p, 5);
    expect([book.busy("p:1"), book.busy("p:9"), book.busy("p:2")]).toEqual([true, true, false]);
    book.onMessage("p:1", msg(50, ["p:8"]), 30);
    expect(book.pending).toBe(1);
    book.onMessage("p:1", msg(50, ["p:7", "p:9"]), 80);
    expect(book.samples.map((s) => [s.kind, s.fromAckMs])).toEqual([["overtake", 75]]);
    expect([book.busy("p:1"), book.busy("p:9")]).toEqual([false, false]);
  });

  it("ends probes unmatched when their write failed or nothing showed them in time", () => {
    const book = new ProbeBook();
    const failed = own("p:1", 1, 0);
    const late = own("p:2", 2, 100);
    const seen = own("p:3", 3, 100);
    for (const p of [failed, late, seen]) book.add(p);
    book.writeFailed(failed);
    book.onMessage("p:3", msg(3), 200); // seen, its acknowledgement still to come: not expired
    expect(book.expire(5000, 1000).map((p) => p.watched)).toEqual(["p:2"]);
    book.acked(seen, 150);
    expect([book.failed, book.expired, book.pending, book.samples.length]).toEqual([1, 1, 0, 1]);
    expect(book.busy("p:1") || book.busy("p:2")).toBe(false);
  });

  it("selects a step's samples by when their writes were sent", () => {
    const book = new ProbeBook();
    for (const [i, sentAt] of [0, 100, 200, 300].entries()) {
      const p = i % 2 ? overtake(`p:${i}`, `q:${i}`, sentAt) : own(`p:${i}`, i, sentAt);
      book.add(p);
      book.acked(p, sentAt + 1);
      book.onMessage(p.watched, msg(i, [`q:${i}`]), sentAt + 10);
    }
    expect(book.samplesSent("own", 0, 250).map((s) => s.sentAt)).toEqual([0, 200]);
    expect(book.samplesSent("overtake", 150, 400).map((s) => s.sentAt)).toEqual([300]);
  });
});
