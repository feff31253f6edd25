// What the apply script receives, checked on a real Redis (test/global-setup.ts): the generated
// constants have the TypeScript's values in Lua, Redis's cmsgpack decodes msgpack.ts's bytes into
// the same values, and scores.lua computes the sort keys model/src/score-encoding.ts does
// (a differential test on edge values of every kind of board).
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { makeBoardSpec, DEFAULT_BOARD, type BoardSpec } from "@ladder/model/board-spec";
import { decodeSortKey, encodeSortKey, timeIndex } from "@ladder/model/score-encoding";
import { assemble } from "./scripts.js";
import { APPLY_OP, APPLY_STATUS, READ_STATUS, TIE_MODE, WINDOW_COMBINE } from "./script-codes.js";
import { PackWriter, type Packable } from "./writer/msgpack.js";

const redis = new Redis(inject("redisUrls")[0]!);
afterAll(() => redis.quit());
const run = (body: string, ...args: Array<string | number | Buffer>) =>
  redis.eval(assemble("includes/scores") + body, 0, ...args) as Promise<unknown>;

describe("apply script > generated constants", () => {
  it("hold the TypeScript's values in Lua", async () => {
    const groups: Array<[string, Record<string, number>]> = [
      ["OP", APPLY_OP],
      ["APPLY", APPLY_STATUS],
      ["READ", READ_STATUS],
      ["COMBINE", WINDOW_COMBINE],
      ["TIE", TIE_MODE],
    ];
    const names = groups.flatMap(([p, codes]) => Object.keys(codes).map((n) => `${p}_${n}`));
    const values = groups.flatMap(([, codes]) => Object.values(codes));
    expect(await run(`return { ${names.map((n) => `tostring(${n})`).join(", ")} }`)).toEqual(values.map(String));
  });
});

// a decoded Lua value as a flat description: numbers exactly ('%.17g'), maps with their keys sorted
const DESCRIBE = `
local function describe(v)
  if type(v) == 'table' then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. '=' .. describe(v[k]) end
    return '{' .. table.concat(parts, ',') .. '}'
  elseif type(v) == 'number' then return string.format('%.17g', v)
  elseif type(v) == 'string' then return '"' .. v .. '"' end
  return tostring(v)
end
return describe(cmsgpack.unpack(ARGV[1]))`;

function expected(v: Packable): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(17).replace(/\.?0+$/, "");
  if (typeof v === "string") return `"${v}"`;
  if (v === null) return "nil";
  if (typeof v === "boolean") return String(v);
  const entries = Array.isArray(v) ? v.map((x, i) => [String(i + 1), x] as const) : Object.entries(v).filter(([, x]) => x !== undefined);
  return `{${entries
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, x]) => `${k}=${expected(x as Packable)}`)
    .join(",")}}`;
}

describe("apply script > packed arguments", () => {
  it("are decoded by cmsgpack into the values packed", async () => {
    const values: Packable[] = [
      {
        offset: 2 ** 53 - 1,
        part: false,
        player: "p-é\u{1F600}",
        op: APPLY_OP.BEST,
        value: -(2 ** 53 - 1),
        windows: false,
        metadata: "m".repeat(300),
      },
      [0, 127, 128, -1, -32, -33, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 1764770000000, 0.5, -1.25],
      { nested: { list: [[], [1, [2, [3]]], Array.from({ length: 20 }, (_, i) => i * 1000)] }, empty: "", long: "x".repeat(70_000) },
      [],
    ];
    const w = new PackWriter();
    for (const v of values) expect(await run(DESCRIBE, w.pack(v))).toBe(expected(v));
  });
});

describe("apply script > score encoding", () => {
  const specs: BoardSpec[] = [
    makeBoardSpec(DEFAULT_BOARD).spec!,
    makeBoardSpec({ ...DEFAULT_BOARD, lowerIsBetter: true, tie: "latest" }).spec!,
    makeBoardSpec({ ...DEFAULT_BOARD, minPoints: -1000, maxPoints: 2 ** 40, tie: "id" }).spec!,
    makeBoardSpec({ ...DEFAULT_BOARD, minPoints: -(2 ** 50), maxPoints: 2 ** 50, resolutionMs: 1 }).spec!,
    makeBoardSpec({ ...DEFAULT_BOARD, minPoints: 0, maxPoints: 1, lowerIsBetter: true }).spec!,
  ];

  it("sort_key, points_of and time_idx_of agree with encodeSortKey and decodeSortKey", async () => {
    for (const spec of specs) {
      // the first, second and last time unit (the last one a timestamp can name: a safe integer)
      const last = Math.min(spec.timeUnits - 1, Math.floor((Number.MAX_SAFE_INTEGER - spec.epochMs) / spec.resolutionMs));
      const times = [0, 1, last].map((u) => spec.epochMs + u * spec.resolutionMs);
      const points = [spec.minPoints, spec.minPoints + 1, 0, spec.maxPoints - 1, spec.maxPoints].filter(
        (p) => p >= spec.minPoints && p <= spec.maxPoints,
      );
      const cases = points.flatMap((p) => times.map((t) => ({ p, t, idx: timeIndex(spec, t), key: encodeSortKey(spec, p, t) })));
      const enc = `{ max_points = ${spec.maxPoints}, min_points = ${spec.minPoints}, time_units = ${spec.timeUnits}, lower = ${spec.lowerIsBetter} }`;
      const tie = { earliest: TIE_MODE.EARLIEST, latest: TIE_MODE.LATEST, id: TIE_MODE.ID }[spec.tie];
      const reply = (await run(
        `
        local enc, out = ${enc}, {}
        for i = 1, #ARGV, 3 do
          local key = sort_key(tonumber(ARGV[i]), tonumber(ARGV[i + 1]), enc)
          local stored = tonumber(ARGV[i + 2])
          local unit = time_unit_of(time_idx_of(stored, enc), ${tie}, enc.time_units)
          out[#out + 1] = string.format('%.17g %.17g %.17g %.17g', key, points_of(stored, enc), unit, fold_time(unit, ${tie}, enc.time_units))
        end
        return out`,
        ...cases.flatMap((c) => [c.p, c.idx, c.key]),
      )) as string[];
      reply.forEach((line, i) => {
        const c = cases[i]!;
        const back = decodeSortKey(spec, c.key);
        const unit = spec.tie === "id" ? 0 : (back.reachedAtMs - spec.epochMs) / spec.resolutionMs;
        expect(line, `${spec.minPoints}..${spec.maxPoints} ${spec.tie} points ${c.p} at ${c.t}`).toBe(
          `${c.key} ${back.points} ${unit} ${c.idx}`,
        );
      });
    }
  });
});
