import { describe, expect, it } from "vitest";
import { DEFAULT_BOARD, makeBoardSpec, BoardSpecs } from "./board-spec.js";
import { compareIds, compareMembers, decodeSortKey, encodeSortKey } from "./score-encoding.js";

const spec = makeBoardSpec(DEFAULT_BOARD).spec!;
const t0 = Date.UTC(2026, 10, 30, 12, 0, 0);

interface Standing {
  playerId: string;
  points: number;
  atMs: number;
}
/**
 * The board's order written from its definition, not from compareMembers: points descending, then the
 * time reached ascending (times within one resolution unit tie), then player id by UTF-8 bytes.
 */
function definedOrder(a: Standing, b: Standing): number {
  if (a.points !== b.points) return a.points > b.points ? -1 : 1;
  const unit = (t: number) => Math.floor((t - spec.epochMs) / spec.resolutionMs);
  if (unit(a.atMs) !== unit(b.atMs)) return unit(a.atMs) < unit(b.atMs) ? -1 : 1;
  return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
}

describe("model > score encoding", () => {
  it("ranks higher points first, then earlier time", () => {
    expect(encodeSortKey(spec, 900, t0)).toBeLessThan(encodeSortKey(spec, 899, t0 - 3600_000));
    expect(encodeSortKey(spec, 900, t0)).toBeLessThan(encodeSortKey(spec, 900, t0 + 60_000));
    expect(encodeSortKey(spec, 900, t0)).toBe(encodeSortKey(spec, 900, t0 + 59_999));
  });

  it("round-trips points and time at the ends of the range exactly", () => {
    const cases: Array<[number, number]> = [
      [spec.maxPoints, spec.epochMs],
      [spec.minPoints, spec.horizonMs - spec.resolutionMs],
      [spec.maxPoints, spec.horizonMs - spec.resolutionMs],
      [spec.minPoints, spec.epochMs],
      [123_456_789, t0],
    ];
    for (const [points, at] of cases) {
      const key = encodeSortKey(spec, points, at);
      expect(key).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
      expect(Number.isSafeInteger(key)).toBe(true);
      expect(decodeSortKey(spec, key)).toEqual({ points, reachedAtMs: at - ((at - spec.epochMs) % spec.resolutionMs) });
    }
  });

  it("keeps keys distinct and ordered next to the 2^53 limit", () => {
    const top = encodeSortKey(spec, spec.minPoints, spec.horizonMs - spec.resolutionMs);
    const below = encodeSortKey(spec, spec.minPoints, spec.horizonMs - 2 * spec.resolutionMs);
    expect(top - below).toBe(1);
    expect(top).toBe(2 ** 53 - 1);
  });

  it("breaks exact ties by player id in byte order, like Redis", () => {
    expect(compareMembers({ playerId: "b", key: 5 }, { playerId: "a", key: 5 })).toBe(1);
    expect(compareMembers({ playerId: "z", key: 4 }, { playerId: "a", key: 5 })).toBe(-1);
    // UTF-16 order would put U+FF5E before U+1F600; UTF-8 byte order puts it first too, but
    // "\uE000" (EE 80 80) sorts after "\u{10000}" in UTF-16 and before it in UTF-8 bytes (F0...).
    expect(compareIds("\uE000", "\u{10000}")).toBe(-1);
    expect("\uE000" < "\u{10000}").toBe(false);
  });

  it("compares ids as Buffer.compare does their UTF-8 bytes, surrogate pairs included", () => {
    let seed = 2026_12_05;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const alphabet = ["a", "b", "z", "é", "\uE000", "\uFFFD", "😀", "𝄞", "\u07FF", "\u0800"];
    const id = () => Array.from({ length: 1 + Math.floor(rand() * 3) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
    for (let i = 0; i < 20_000; i++) {
      const [a, b] = [id(), id()];
      expect(compareIds(a, b), `${a} vs ${b}`).toBe(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
    }
  });

  it("orders encoded members exactly as the board's definition does, at the range's edges too", () => {
    let seed = 7;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const last = spec.horizonMs - spec.resolutionMs;
    const points = [spec.minPoints, spec.minPoints + 1, 7, 8, spec.maxPoints - 1, spec.maxPoints];
    const times = [spec.epochMs, spec.epochMs + 59_999, t0, t0 + 30_000, t0 + 60_000, last, last + spec.resolutionMs - 1];
    const prefixes = ["a", "b", "é", "\uE000", "\u{10000}", "Z", "~"];
    const entries: Standing[] = Array.from({ length: 400 }, (_, i) => ({
      playerId: `${pick(prefixes)}${i % 7}-${i}`,
      points: pick(points),
      atMs: pick(times),
    }));
    const keyed = entries.map((e) => ({ playerId: e.playerId, key: encodeSortKey(spec, e.points, e.atMs) }));
    const disagree: string[] = [];
    entries.forEach((a, i) =>
      entries.forEach((b, j) => {
        if (Math.sign(compareMembers(keyed[i]!, keyed[j]!)) !== Math.sign(definedOrder(a, b)))
          disagree.push(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
      }),
    );
    expect(disagree).toEqual([]);
    expect([...keyed].sort(compareMembers).map((m) => m.playerId)).toEqual([...entries].sort(definedOrder).map((e) => e.playerId));
  });
});

describe("model > board specs", () => {
  it("derives the time budget from the points range", () => {
    expect(spec.timeUnits).toBe(2 ** 22);
    const daily = makeBoardSpec({ prefix: "daily:", minPoints: 0, maxPoints: 2 ** 26 - 1, resolutionMs: 1, epochMs: 0 }).spec!;
    expect(daily.timeUnits).toBe(2 ** 27);
  });

  it("reports every problem of a bad spec", () => {
    const { problems } = makeBoardSpec({ prefix: "x", minPoints: 5, maxPoints: 1, resolutionMs: 0, epochMs: -1 });
    expect(problems).toHaveLength(3);
    expect(makeBoardSpec({ prefix: "y", minPoints: -(2 ** 52), maxPoints: 2 ** 52, resolutionMs: 1, epochMs: 0 }).problems[0]).toMatch(
      /no bits for time/,
    );
  });

  it("picks the longest matching prefix", () => {
    const daily = makeBoardSpec({ ...DEFAULT_BOARD, prefix: "daily:", resolutionMs: 1000 }).spec!;
    const specs = new BoardSpecs([spec, daily]);
    expect(specs.forBoard("daily:2026-11-30")).toBe(daily);
    expect(specs.forBoard("global")).toBe(spec);
  });
});

describe("model > score encoding > a defined board's order and tie rule", () => {
  const variants = [
    { lowerIsBetter: false, tie: "earliest" },
    { lowerIsBetter: true, tie: "earliest" },
    { lowerIsBetter: false, tie: "latest" },
    { lowerIsBetter: true, tie: "latest" },
    { lowerIsBetter: false, tie: "id" },
    { lowerIsBetter: true, tie: "id" },
  ] as const;
  for (const v of variants) {
    it(`${v.lowerIsBetter ? "lower" : "higher"} is better, ties ${v.tie}: keys sort as the rules say, and decode to what was encoded`, () => {
      const s = makeBoardSpec({
        prefix: "b",
        minPoints: -50,
        maxPoints: 50,
        resolutionMs: 1000,
        epochMs: Date.UTC(2026, 0, 1),
        generation: 1,
        ...v,
      }).spec!;
      // written from the rules, not from the encoding
      const rules = (a: Standing, b: Standing) => {
        if (a.points !== b.points) return a.points < b.points === v.lowerIsBetter ? -1 : 1;
        const unit = (t: number) => Math.floor((t - s.epochMs) / s.resolutionMs);
        if (v.tie !== "id" && unit(a.atMs) !== unit(b.atMs)) return unit(a.atMs) < unit(b.atMs) === (v.tie === "earliest") ? -1 : 1;
        return Buffer.compare(Buffer.from(a.playerId, "utf8"), Buffer.from(b.playerId, "utf8"));
      };
      let seed = 7;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      const xs: Standing[] = Array.from({ length: 300 }, (_, i) => ({
        playerId: `p${rand(40)}-${i}`,
        points: rand(11) - 5,
        atMs: s.epochMs + rand(5) * 700,
      }));
      const byKey = [...xs].sort((a, b) =>
        compareMembers(
          { playerId: a.playerId, key: encodeSortKey(s, a.points, a.atMs) },
          { playerId: b.playerId, key: encodeSortKey(s, b.points, b.atMs) },
        ),
      );
      expect(byKey).toEqual([...xs].sort(rules));
      for (const x of xs) {
        const d = decodeSortKey(s, encodeSortKey(s, x.points, x.atMs));
        expect(d.points).toBe(x.points);
        expect(d.reachedAtMs).toBe(v.tie === "id" ? 0 : x.atMs - ((x.atMs - s.epochMs) % 1000));
      }
      // the ends of the range stay within 53 bits and round-trip
      for (const [p, t] of [
        [s.minPoints, s.epochMs],
        [s.maxPoints, s.horizonMs - 1000],
      ] as const) {
        const key = encodeSortKey(s, p, t);
        expect(key).toBeGreaterThanOrEqual(0);
        expect(key).toBeLessThan(2 ** 53);
        expect(decodeSortKey(s, key).points).toBe(p);
      }
    });
  }
});
