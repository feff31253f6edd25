/**
 * fast-check arbitraries of malformed requests for every rpc (used by malformed.int.test.ts).
 *
 * Every bad request is a valid one plus at least one defect, so what the service must answer
 * is known exactly: a batch holds one bad update at a random index among good ones (or is
 * empty, or too long); a read or a rebuild holds one to three bad fields.
 *
 * Raw payloads are bytes sent with an identity serializer. "Undecodable" tails make
 * protobuf-es's fromBinary throw whatever precedes them: an illegal tag (field 0, wire type 6
 * or 7, a tag varint over 5 bytes), a varint or length running past the end, a group left
 * open, closed by the wrong field or nested past the recursion limit, or invalid UTF-8 in a
 * string field (proto3 strings decode strictly). They follow a valid message, so a server that
 * decoded leniently would act on a valid request. protobuf-es does not check the wire type of
 * a known field, so a wrong wire type is not undecodable by itself: those payloads end in
 * field 1 with a wrong wire type and at most 7 bytes after it, fewer than the shortest valid
 * update (8 bytes), so whatever a decoder makes of them is an invalid batch.
 */
import { create, toBinary, ScalarType, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import fc from "fast-check";
import { playerIdProblem } from "@ladder/model/validate";
import { GetClusterStatusRequestSchema, RebuildShardsRequestSchema, ReshardRequestSchema } from "@ladder/proto/leaderboard/v1/admin_pb";
import { ConsistencyTokenSchema, Operation } from "@ladder/proto/leaderboard/v1/common_pb";
import { ScoreUpdateSchema, SubmitScoresRequestSchema } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { GetAroundRequestSchema, GetRankRequestSchema, GetTopRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";

export type Update = MessageInitShape<typeof ScoreUpdateSchema>;

// ---- bytes -------------------------------------------------------------------------------

const utf8 = (s: string) => [...Buffer.from(s, "utf8")];

/** Unsigned LEB128 of the low 64 bits of `n` (negative int64s take 10 bytes, as on the wire). */
function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  for (; v >= 0x80n; v >>= 7n) out.push(Number(v & 0x7fn) | 0x80);
  return [...out, Number(v)];
}

const tag = (field: number, wireType: number) => varint((BigInt(field) << 3n) | BigInt(wireType));
const lenField = (field: number, bytes: number[]) => [...tag(field, 2), ...varint(bytes.length), ...bytes];

/** Numbers of the fields of `schema` carried length-delimited (strings, messages, repeated). */
function lengthDelimitedFields(schema: DescMessage): number[] {
  return schema.fields
    .filter((f) => f.fieldKind !== "enum" && (f.fieldKind !== "scalar" || f.scalar === ScalarType.STRING))
    .map((f) => f.number);
}

/** Numbers of the (singular or repeated) string fields of `schema`. */
function stringFields(schema: DescMessage): number[] {
  return schema.fields
    .filter((f) => (f.fieldKind === "scalar" || (f.fieldKind === "list" && f.listKind === "scalar")) && f.scalar === ScalarType.STRING)
    .map((f) => f.number);
}

const unknownField = fc.integer({ min: 100, max: 2 ** 29 - 1 });
const someBytes = (max: number) => fc.array(fc.nat(255), { maxLength: max });
const continuation = (min: number, max: number) => fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: min, maxLength: max });

/**
 * Bytes that make fromBinary of `schema` throw when they follow a complete message of it.
 * With `atEnd` false, only those that throw whatever bytes come after them.
 */
export function undecodableTail(schema: DescMessage, atEnd = true): fc.Arbitrary<number[]> {
  const anywhere = [
    // field number 0, any wire type; then anything
    fc.tuple(fc.integer({ min: 0, max: 7 }), someBytes(8)).map(([wt, rest]) => [wt, ...rest]),
    // wire types 6 and 7 do not exist
    fc
      .tuple(fc.integer({ min: 1, max: 2 ** 29 - 1 }), fc.constantFrom(6, 7), someBytes(8))
      .map(([f, wt, rest]) => [...tag(f, wt), ...rest]),
    // a tag varint of 6 to 10 bytes (a tag is a uint32)
    continuation(5, 9).map((b) => [...b, 0x01]),
    // an unknown group closed by another field, or a lone end-group tag
    fc.tuple(unknownField, fc.integer({ min: 1, max: 1000 })).map(([f, d]) => [...tag(f, 3), ...tag(f + d, 4)]),
    unknownField.map((f) => tag(f, 4)),
    // unknown groups nested past protobuf-es's recursion limit (100)
    fc
      .tuple(unknownField, fc.integer({ min: 101, max: 3000 }))
      .map(([f, depth]) => [...Array(depth).fill(tag(f, 3)).flat(), ...Array(depth).fill(tag(f, 4)).flat()]),
  ];
  if (!atEnd) return fc.oneof(...anywhere);
  const lenFields = lengthDelimitedFields(schema);
  return fc.oneof(
    ...anywhere,
    // a tag varint cut off by the end
    continuation(1, 4),
    // a length (of a known length-delimited or an unknown field) past the end
    fc
      .tuple(fc.constantFrom(...lenFields, 1000), someBytes(16), fc.integer({ min: 1, max: 2 ** 31 }))
      .map(([f, body, extra]) => [...tag(f, 2), ...varint(body.length + extra), ...body]),
    // an unknown field's varint value, fixed64 or fixed32 cut off by the end
    fc.tuple(unknownField, continuation(1, 9)).map(([f, v]) => [...tag(f, 0), ...v]),
    fc.tuple(unknownField, someBytes(7)).map(([f, b]) => [...tag(f, 1), ...b]),
    fc.tuple(unknownField, someBytes(3)).map(([f, b]) => [...tag(f, 5), ...b]),
    // an unknown group never closed
    fc.tuple(unknownField, fc.nat(5)).map(([f, n]) => [...tag(f, 3), ...Array.from({ length: n }, () => [...tag(f + 1, 0), 1]).flat()]),
  );
}

/** Byte sequences that are not UTF-8 wherever they stand between whole characters. */
const notUtf8 = fc.constantFrom(
  [0x80],
  [0xbf],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xc3],
  [0xc3, 0x28],
  [0xe2, 0x82],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf0, 0x82, 0x82, 0xac],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xfe],
  [0xff],
);

/** A string field of `schema` (one of its numbers) holding invalid UTF-8 amid valid text. */
export function invalidUtf8Field(schema: DescMessage): fc.Arbitrary<number[]> {
  return fc
    .tuple(fc.constantFrom(...stringFields(schema)), fc.string({ maxLength: 20 }), notUtf8, fc.string({ maxLength: 20 }))
    .map(([f, before, bad, after]) => lenField(f, [...utf8(before), ...bad, ...utf8(after)]));
}

// ---- strings -----------------------------------------------------------------------------

export const BOARD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:";
const boardChar = fc.constantFrom(...BOARD_CHARS);
const wellFormed = (s: string) => {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

/** `s` with `x` inserted at `at` (taken modulo the length + 1). */
const insert = (s: string, x: string, at: number) => s.slice(0, at % (s.length + 1)) + x + s.slice(at % (s.length + 1));
const repeatTo = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

export const validBoard = (seeded: readonly string[]) =>
  fc.oneof(fc.constantFrom(...seeded), fc.string({ unit: boardChar, minLength: 1, maxLength: 64 }));

/** Player ids the policy takes (model/src/validate.ts), without U+FFFD (what a lone surrogate becomes on the wire). */
export const validPlayer = (seeded: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...seeded),
    fc
      .string({ unit: "grapheme", minLength: 1, maxLength: 24 })
      .filter((s) => playerIdProblem(s) === undefined && !s.includes("\ufffd") && wellFormed(s)),
  );

/** Characters the player id policy refuses anywhere: format characters (zero-width, BOM, bidi) and separators. */
const invisibleChar = fc.constantFrom(
  ..."\u200b\u200c\u200d\u2060\ufeff\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029\u00ad",
);

const validEventId = fc.oneof(fc.constant(""), fc.string({ unit: "grapheme-ascii", maxLength: 128 }), fc.uuid());

/** Characters a board (and a view) name may not hold, lone surrogates and controls among them. */
const notBoardChar = fc.oneof(
  fc.constantFrom(
    " ",
    "/",
    "#",
    "*",
    "=",
    "é",
    "ß",
    "😀",
    "\u0000",
    "\n",
    "\t",
    "\u007f",
    "\u0085",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\ud83d",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => !BOARD_CHARS.includes(c)),
);

export const badBoard = fc.oneof(
  fc.constant(""),
  fc.tuple(fc.string({ unit: boardChar, minLength: 1, maxLength: 8 }), fc.integer({ min: 65, max: 4096 })).map(([u, n]) => repeatTo(u, n)),
  fc.tuple(fc.string({ unit: boardChar, maxLength: 63 }), notBoardChar, fc.nat()).map(([s, c, at]) => insert(s, c, at)),
);
export const badView = badBoard.filter((v) => v !== "");

export const badPlayer = fc.oneof(
  fc.constant(""),
  // over 128 bytes, in ASCII or in fewer than 128 multi-byte characters
  fc
    .tuple(fc.constantFrom("x", "é", "€", "😀", "a€😀"), fc.integer({ min: 129, max: 6000 }))
    .map(([u, bytes]) => u.repeat(Math.ceil(bytes / Buffer.byteLength(u)))),
  // a control character anywhere
  fc
    .tuple(
      fc.string({ unit: "grapheme-ascii", maxLength: 40 }),
      fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f),
      fc.nat(),
    )
    .map(([s, c, at]) => insert(s, String.fromCharCode(c), at)),
  // an invisible character anywhere, whitespace alone, or whitespace around an id
  fc.tuple(fc.string({ unit: "grapheme-ascii", maxLength: 40 }), invisibleChar, fc.nat()).map(([s, c, at]) => insert(s, c, at)),
  fc.constantFrom(" ", "  ", "\u00a0", "\u3000"),
  fc
    .tuple(fc.stringMatching(/^[a-z0-9]{1,20}$/), fc.constantFrom(" ", "\u00a0", "\u2003"), fc.boolean())
    .map(([s, w, before]) => (before ? w + s : s + w)),
  // (no lone surrogates: the typed client sends them as U+FFFD, a valid character; invalid UTF-8
  // on the wire is covered by the raw-bytes properties)
);

const badEventId = fc
  .tuple(fc.constantFrom("e", "é", "€", "😀"), fc.integer({ min: 129, max: 4096 }))
  .map(([u, bytes]) => u.repeat(Math.ceil(bytes / Buffer.byteLength(u))));

// ---- score updates -----------------------------------------------------------------------

export interface TimeRange {
  /** Board time range [epochMs, horizonMs) and the latest timestamp sure to be in the future. */
  epochMs: number;
  horizonMs: number;
  futureMs: number;
}

const MAX_POINTS = 2n ** 31n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function validUpdate(boards: fc.Arbitrary<string>, players: fc.Arbitrary<string>, t: TimeRange): fc.Arbitrary<Update> {
  return fc
    .record({
      board: boards,
      playerId: players,
      op: fc.constantFrom(Operation.SET, Operation.INCREMENT, Operation.BEST),
      magnitude: fc.bigInt(0n, MAX_POINTS),
      negative: fc.boolean(),
      timestampMs: fc.oneof(fc.constant(0n), fc.bigInt(BigInt(t.epochMs), BigInt(Date.now() - 60_000))),
      eventId: validEventId,
    })
    .map(({ magnitude, negative, ...u }) => ({ ...u, value: u.op === Operation.INCREMENT && negative ? -magnitude : magnitude }));
}

type Defect = "board" | "player_id" | "event_id" | "op" | "value" | "timestamp_ms";

/** What the error details say for each defect (the first one checked wins). */
export const DEFECT_WORDS: Record<Defect, RegExp> = {
  board: /^board /,
  player_id: /^player_id /,
  event_id: /^event_id /,
  op: /^op /,
  value: /^(value|increment) /,
  timestamp_ms: /^timestamp_ms /,
};

const outOfInt32 = fc.oneof(
  fc.bigInt(MAX_POINTS + 1n, INT64_MAX),
  fc.bigInt(INT64_MIN, -MAX_POINTS - 1n),
  fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 31n, -(2n ** 31n)),
);
const badValueFor = (op: Operation) =>
  op === Operation.INCREMENT ? outOfInt32 : fc.oneof(outOfInt32, fc.bigInt(INT64_MIN, -1n), fc.constant(-1n));
const badOp = fc.oneof(fc.constant(0), fc.integer({ min: 4, max: 2 ** 31 - 1 }), fc.integer({ min: -(2 ** 31), max: -1 }));
const badTimestamp = (t: TimeRange) =>
  fc.oneof(
    fc.bigInt(INT64_MIN, -1n),
    fc.constant(-1n),
    fc.bigInt(1n, BigInt(t.epochMs) - 1n),
    fc.constant(BigInt(t.epochMs) - 1n), // before 2026
    fc.bigInt(BigInt(t.futureMs), INT64_MAX),
    fc.constantFrom(BigInt(t.horizonMs), INT64_MAX),
  );

/** A valid update with one to three defects, and the defects. */
export function invalidUpdate(valid: fc.Arbitrary<Update>, t: TimeRange): fc.Arbitrary<{ update: Update; defects: Defect[] }> {
  const all: Defect[] = ["board", "player_id", "event_id", "op", "value", "timestamp_ms"];
  return fc.tuple(valid, fc.subarray(all, { minLength: 1, maxLength: 3 })).chain(([u, defects]) =>
    fc
      .record({
        board: defects.includes("board") ? badBoard : fc.constant(u.board),
        playerId: defects.includes("player_id") ? badPlayer : fc.constant(u.playerId),
        eventId: defects.includes("event_id") ? badEventId : fc.constant(u.eventId),
        op: defects.includes("op") ? badOp : fc.constant(u.op!),
        value: defects.includes("value") ? badValueFor(u.op!) : fc.constant(u.value),
        timestampMs: defects.includes("timestamp_ms") ? badTimestamp(t) : fc.constant(u.timestampMs),
      })
      .map((update) => ({ update, defects })),
  );
}

/** A batch and the INVALID_ARGUMENT details it must get. */
export interface BadBatch {
  updates: Update[];
  details: RegExp;
  /** Words of which the reason must hold one (per-update problems only). */
  words: RegExp[];
}

export function badBatch(valid: fc.Arbitrary<Update>, t: TimeRange): fc.Arbitrary<BadBatch> {
  const oneBad = fc.tuple(fc.array(valid, { maxLength: 40 }), invalidUpdate(valid, t), fc.nat()).map(([good, bad, at]): BadBatch => {
    const index = at % (good.length + 1);
    return {
      updates: [...good.slice(0, index), bad.update, ...good.slice(index)],
      details: new RegExp(`^updates\\[${index}\\]: `),
      words: bad.defects.map((d) => DEFECT_WORDS[d]),
    };
  });
  const tooMany = fc.tuple(valid, fc.integer({ min: 1001, max: 1300 }), fc.option(invalidUpdate(valid, t))).map(
    ([u, n, bad]): BadBatch => ({
      updates: [...Array<Update>(n - 1).fill(u), bad?.update ?? u],
      details: new RegExp(`^updates: must hold 1\\.\\.1000 updates, got ${n}$`),
      words: [],
    }),
  );
  return fc.oneof(
    { arbitrary: oneBad, weight: 20 },
    { arbitrary: fc.constant<BadBatch>({ updates: [], details: /^updates: must hold 1\.\.1000 updates, got 0$/, words: [] }), weight: 1 },
    { arbitrary: tooMany, weight: 1 },
  );
}

// ---- raw SubmitScores payloads -----------------------------------------------------------

/** A raw SubmitScores payload and whether it must fail decoding (else any invalid batch). */
export interface RawPayload {
  kind: string;
  bytes: Buffer;
  undecodable: boolean;
}

const encodeBatch = (updates: Update[]) => [...toBinary(SubmitScoresRequestSchema, create(SubmitScoresRequestSchema, { updates }))];
const encodeUpdate = (u: Update) => [...toBinary(ScoreUpdateSchema, create(ScoreUpdateSchema, u))];

export function rawSubmitScores(valid: fc.Arbitrary<Update>): fc.Arbitrary<RawPayload> {
  const batch = fc.array(valid, { maxLength: 10 });
  const raw =
    (kind: string, undecodable: boolean) =>
    (bytes: number[]): RawPayload => ({ kind, bytes: Buffer.from(bytes), undecodable });
  return fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((b) => raw("random bytes", false)([...b])),
    fc
      .tuple(batch, undecodableTail(SubmitScoresRequestSchema))
      .map(([us, tail]) => raw("valid batch + undecodable tail", true)([...encodeBatch(us), ...tail])),
    // one update (at a random index) with invalid UTF-8 in a string, or an undecodable tail inside it
    fc
      .tuple(batch, valid, fc.oneof(invalidUtf8Field(ScoreUpdateSchema), undecodableTail(ScoreUpdateSchema, false)), fc.nat())
      .map(([us, u, bad, at]) => {
        const index = at % (us.length + 1);
        const inner = [...encodeUpdate(u), ...bad];
        return raw(
          "update with invalid UTF-8 or an undecodable tail",
          true,
        )([...encodeBatch(us.slice(0, index)), ...lenField(1, inner), ...encodeBatch(us.slice(index))]);
      }),
    // field 1 (updates) with a wrong wire type at the very end, at most 7 bytes after its tag
    fc
      .tuple(batch, fc.constantFrom(0, 1, 3, 4, 5), someBytes(7))
      .map(([us, wt, rest]) => raw("updates with a wrong wire type", false)([...encodeBatch(us), ...tag(1, wt), ...rest])),
  );
}

// ---- consistency tokens ------------------------------------------------------------------

const b64url = (bytes: number[] | Uint8Array) => Buffer.from(bytes).toString("base64url");
const token = (offsets: Array<{ partition: number; offset: bigint }>) => [
  ...toBinary(ConsistencyTokenSchema, create(ConsistencyTokenSchema, { offsets })),
];

/**
 * consistency_token values no reading of the contract can accept, for a cluster of `slots`
 * slots. Left out: strings of an impossible base64 length (4n+1) and tokens holding only
 * unknown fields, which the router currently reads as "no requirement" and serves.
 */
export function badToken(slots: number): fc.Arbitrary<string> {
  const goodEntry = fc.record({ partition: fc.nat(slots - 1), offset: fc.constant(0n) });
  const badEntry = fc.oneof(
    fc.record({ partition: fc.integer({ min: slots, max: 2 ** 32 - 1 }), offset: fc.bigInt(0n, INT64_MAX) }),
    fc.record({ partition: fc.nat(slots - 1), offset: fc.bigInt(INT64_MIN, -1n) }),
  );
  return fc.oneof(
    // a character outside base64url (padding, the other alphabet, spaces, controls, non-ASCII)
    fc
      .tuple(
        fc.base64String({ maxLength: 40 }).map((s) => s.replace(/=+$/, "")),
        fc.constantFrom("=", "+", "/", " ", ".", "\n", "\u0000", "é", "😀", "\ud800", "~", "%"),
        fc.nat(),
      )
      .map(([s, c, at]) => insert(s, c, at)),
    // base64url of bytes that are not a ConsistencyToken
    fc
      .tuple(fc.array(goodEntry, { maxLength: 3 }), undecodableTail(ConsistencyTokenSchema))
      .map(([es, tail]) => b64url([...token(es), ...tail])),
    // a well-formed token naming a partition this cluster lacks or a negative offset
    fc
      .tuple(fc.array(goodEntry, { maxLength: 3 }), badEntry, fc.array(goodEntry, { maxLength: 3 }))
      .map(([a, bad, b]) => b64url(token([...a, bad, ...b]))),
  );
}

// ---- reads -------------------------------------------------------------------------------

type TopInit = MessageInitShape<typeof GetTopRequestSchema>;
type RankInit = MessageInitShape<typeof GetRankRequestSchema>;
type AroundInit = MessageInitShape<typeof GetAroundRequestSchema>;

export type Read = { rpc: "getTop"; req: TopInit } | { rpc: "getRank"; req: RankInit } | { rpc: "getAround"; req: AroundInit };

/** A read with one to three bad fields, and the words of which its details must hold one. */
export interface BadRead {
  read: Read;
  words: RegExp[];
}

const READ_WORDS = {
  board: /^board /,
  player_id: /^player_id /,
  limit: /^limit: must be 1\.\.1000 \(0: 10\), got \d+$/,
  offset: /^offset: offset \+ limit must be at most 10000, got \d+/,
  radius: /^radius: must be 1\.\.100 \(0: 5\), got \d+$/,
  consistency_token: /^consistency_token: must /,
  view: /^view /,
} as const;
type ReadField = keyof typeof READ_WORDS;

const MAX_UINT32 = 2 ** 32 - 1;
const MAX_UINT64 = 2n ** 64n - 1n;

/** `good` or `bad` for `field`, as `defects` says. */
const either = <T>(defects: readonly ReadField[], field: ReadField, good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
  defects.includes(field) ? bad : good;

export function badRead(boards: fc.Arbitrary<string>, players: fc.Arbitrary<string>, slots: number): fc.Arbitrary<BadRead> {
  const tokens = badToken(slots);
  const common = (d: readonly ReadField[]) => ({
    board: either(d, "board", boards, badBoard),
    consistencyToken: either(d, "consistency_token", fc.constant(""), tokens),
    view: either(d, "view", fc.constant(""), badView),
  });
  const withDefects = (fields: ReadField[]) => fc.subarray(fields, { minLength: 1, maxLength: 3 });
  const top = withDefects(["board", "limit", "offset", "consistency_token", "view"]).chain((d) =>
    fc
      .record({
        ...common(d),
        limit: either(d, "limit", fc.nat(1000), fc.integer({ min: 1001, max: MAX_UINT32 })),
        room: fc.bigInt(0n, 10_000n),
        excess: fc.oneof(fc.constant(1n), fc.bigInt(1n, MAX_UINT64)),
      })
      .map(({ room, excess, ...req }): BadRead => {
        const last = 10_000n - BigInt(req.limit === 0 ? 10 : req.limit); // the deepest valid offset (may be < 0)
        const offset = d.includes("offset") ? bigMin(MAX_UINT64, bigMax(0n, last + excess)) : bigMin(room, bigMax(0n, last));
        return { read: { rpc: "getTop", req: { ...req, offset } }, words: d.map((f) => READ_WORDS[f]) };
      }),
  );
  const rank = withDefects(["board", "player_id", "consistency_token", "view"]).chain((d) =>
    fc
      .record({
        ...common(d),
        playerId: either(d, "player_id", players, badPlayer),
      })
      .map((req): BadRead => ({ read: { rpc: "getRank", req }, words: d.map((f) => READ_WORDS[f]) })),
  );
  const around = withDefects(["board", "player_id", "radius", "consistency_token", "view"]).chain((d) =>
    fc
      .record({
        ...common(d),
        playerId: either(d, "player_id", players, badPlayer),
        radius: either(d, "radius", fc.nat(100), fc.integer({ min: 101, max: MAX_UINT32 })),
      })
      .map((req): BadRead => ({ read: { rpc: "getAround", req }, words: d.map((f) => READ_WORDS[f]) })),
  );
  return fc.oneof(top, rank, around);
}

const bigMin = (a: bigint, b: bigint) => (a < b ? a : b);
const bigMax = (a: bigint, b: bigint) => (a > b ? a : b);

/** A valid read of any of the three rpcs. */
export function validRead(boards: fc.Arbitrary<string>, players: fc.Arbitrary<string>): fc.Arbitrary<Read> {
  return fc.oneof(
    fc.record({ board: boards, limit: fc.nat(1000), offset: fc.bigInt(0n, 9000n) }).map((req): Read => ({ rpc: "getTop", req })),
    fc.record({ board: boards, playerId: players }).map((req): Read => ({ rpc: "getRank", req })),
    fc.record({ board: boards, playerId: players, radius: fc.nat(100) }).map((req): Read => ({ rpc: "getAround", req })),
  );
}

/** GetRank or GetAround of a well-formed player who has no score on a well-formed board. */
export function unknownPlayerRead(boards: fc.Arbitrary<string>, ghosts: fc.Arbitrary<string>): fc.Arbitrary<Read> {
  return fc.oneof(
    fc.record({ board: boards, playerId: ghosts }).map((req): Read => ({ rpc: "getRank", req })),
    fc.record({ board: boards, playerId: ghosts, radius: fc.nat(100) }).map((req): Read => ({ rpc: "getAround", req })),
  );
}

/** Encoded reads with invalid UTF-8 in a string field or an undecodable tail. */
export function rawRead(reads: fc.Arbitrary<Read>): fc.Arbitrary<{ method: "GetTop" | "GetRank" | "GetAround"; bytes: Buffer }> {
  const schemas = { getTop: GetTopRequestSchema, getRank: GetRankRequestSchema, getAround: GetAroundRequestSchema } as const;
  const methods = { getTop: "GetTop", getRank: "GetRank", getAround: "GetAround" } as const;
  return reads.chain((r) => {
    const schema: DescMessage = schemas[r.rpc];
    const body = [...toBinary(schema, create(schema, r.req as never))];
    return fc
      .oneof(
        fc.tuple(invalidUtf8Field(schema), fc.boolean()).map(([bad, first]) => (first ? [...bad, ...body] : [...body, ...bad])),
        undecodableTail(schema).map((tail) => [...body, ...tail]),
      )
      .map((bytes) => ({ method: methods[r.rpc], bytes: Buffer.from(bytes) }));
  });
}

// ---- RebuildShards -----------------------------------------------------------------------

export type RebuildInit = MessageInitShape<typeof RebuildShardsRequestSchema>;

/** A RebuildShards request that must be refused, the code, and the details it must match. */
export interface BadRebuild {
  req: RebuildInit;
  code: "NOT_FOUND" | "INVALID_ARGUMENT";
  details: RegExp;
}

/**
 * Never a valid request: a valid one would rebuild (swap) whole Redis databases. Unknown
 * shards come with an audit view, so a server that missed them would only build a view.
 */
export function badRebuild(shardIds: readonly string[], slots: number): fc.Arbitrary<BadRebuild> {
  const known = fc.subarray([...shardIds]);
  const goodView = fc.string({ unit: boardChar, minLength: 1, maxLength: 64 });
  const goodOffset = fc.record({ partition: fc.nat(slots - 1), offset: fc.bigInt(-1n, INT64_MAX) });
  const badOffset = fc.oneof(
    fc.record({ partition: fc.integer({ min: slots, max: MAX_UINT32 }), offset: fc.bigInt(-1n, INT64_MAX) }),
    fc.record({ partition: fc.nat(slots - 1), offset: fc.bigInt(INT64_MIN, -2n) }),
  );
  const unknownShard = fc
    .oneof(
      fc.constantFrom("shard-3", "shard-00", "SHARD-0", " shard-0", "shard-0 ", "shard-1\u0000", "\ud800"),
      fc.string({ maxLength: 80 }),
    )
    .filter((id) => !shardIds.includes(id));
  return fc.oneof(
    fc.tuple(known, unknownShard, fc.nat(), goodView).map(([ids, unknown, at, auditView]): BadRebuild => {
      const i = at % (ids.length + 1);
      return { req: { shardIds: [...ids.slice(0, i), unknown, ...ids.slice(i)], auditView }, code: "NOT_FOUND", details: /^no shard "/ };
    }),
    fc
      .record({ shardIds: known, auditView: badView, asOfTimestampMs: fc.bigInt(0n, INT64_MAX) })
      .map((req): BadRebuild => ({ req, code: "INVALID_ARGUMENT", details: /^audit_view: / })),
    fc
      .record({
        shardIds: known,
        asOfTimestampMs: fc.oneof(
          fc.bigInt(INT64_MIN, INT64_MAX).filter((t) => t !== 0n),
          fc.constant(0n),
        ),
        asOfOffsets: fc.array(goodOffset, { maxLength: 4 }),
      })
      .filter((r) => r.asOfTimestampMs !== 0n || r.asOfOffsets.length > 0)
      .map(
        (req): BadRebuild => ({
          req,
          code: "INVALID_ARGUMENT",
          details: /^audit_view: must be set with as_of_timestamp_ms or as_of_offsets/,
        }),
      ),
    fc
      .record({ shardIds: known, auditView: goodView, asOfTimestampMs: fc.bigInt(INT64_MIN, -1n) })
      .map((req): BadRebuild => ({ req, code: "INVALID_ARGUMENT", details: /^as_of_timestamp_ms: must be 0 or more, got -\d+$/ })),
    fc.tuple(known, goodView, fc.array(goodOffset, { maxLength: 3 }), badOffset, fc.array(goodOffset, { maxLength: 3 })).map(
      ([ids, auditView, a, bad, b]): BadRebuild => ({
        req: { shardIds: ids, auditView, asOfOffsets: [...a, bad, ...b] },
        code: "INVALID_ARGUMENT",
        details: /^as_of_offsets: /,
      }),
    ),
  );
}

/** Encoded refused rebuilds (unknown shard, cut-off without a view) with invalid UTF-8 or an undecodable tail. */
export const rawRebuild: fc.Arbitrary<Buffer> = fc
  .oneof(invalidUtf8Field(RebuildShardsRequestSchema), undecodableTail(RebuildShardsRequestSchema))
  .map((bad) => {
    const refused = [
      ...toBinary(RebuildShardsRequestSchema, create(RebuildShardsRequestSchema, { shardIds: ["no-such-shard"], asOfTimestampMs: 1n })),
    ];
    return Buffer.from([...refused, ...bad]);
  });

/** GetClusterStatus requests: known shards only (answered), or with an unknown one among them (NOT_FOUND). */
export function clusterStatusRequest(shardIds: readonly string[]): fc.Arbitrary<{ shardIds: string[]; unknown: boolean }> {
  const known = fc.subarray([...shardIds]);
  const unknownShard = fc
    .oneof(fc.constantFrom("shard-3", "shard-00", "SHARD-0", " shard-0", "shard-1\u0000", "\ud800", ""), fc.string({ maxLength: 80 }))
    .filter((id) => !shardIds.includes(id));
  return fc.oneof(
    known.map((ids) => ({ shardIds: ids, unknown: false })),
    fc.tuple(known, unknownShard, fc.nat()).map(([ids, unknown, at]) => {
      const i = at % (ids.length + 1);
      return { shardIds: [...ids.slice(0, i), unknown, ...ids.slice(i)], unknown: true };
    }),
  );
}

/** Encoded GetClusterStatus requests with invalid UTF-8 or an undecodable tail. */
export const rawClusterStatus: fc.Arbitrary<Buffer> = fc
  .oneof(invalidUtf8Field(GetClusterStatusRequestSchema), undecodableTail(GetClusterStatusRequestSchema))
  .map((bad) =>
    Buffer.from([...toBinary(GetClusterStatusRequestSchema, create(GetClusterStatusRequestSchema, { shardIds: ["shard-0"] })), ...bad]),
  );

/** A Reshard request that must be refused with INVALID_ARGUMENT (nothing moves): which field `words` say. */
export interface BadReshard {
  req: { add: Array<{ id: string; redisUrl: string }>; remove: string[] };
  words: RegExp;
}

/** Bad Reshard requests for a cluster of `shardIds`: nothing named, a shard added that is there, a bad id or address, a shard removed that is not there or twice, every shard removed. */
export function badReshard(shardIds: readonly string[]): fc.Arbitrary<BadReshard> {
  const known = fc.constantFrom(...shardIds);
  const unknown = fc
    .oneof(fc.constantFrom("shard-9", "SHARD-0", " shard-0", "shard-1\u0000", "\ud800", ""), fc.string({ maxLength: 80 }))
    .filter((id) => !shardIds.includes(id));
  const badId = fc.oneof(
    fc.constantFrom("", "a b", "x".repeat(65), "shard/1", "\ud800", "é"),
    fc.string({ maxLength: 80 }).filter((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id)),
  );
  const badUrl = fc.oneof(
    fc.constantFrom("", "redis://", "http://127.0.0.1:7004", "127.0.0.1:7004", "sentinel://", "redis:/x"),
    fc.string({ maxLength: 80 }).filter((u) => !/^(rediss?|sentinel):\/\//.test(u)),
  );
  const goodNew = fc.integer({ min: 10, max: 99 }).map((n) => ({ id: `new-${n}`, redisUrl: `redis://127.0.0.1:${20000 + n}` }));
  return fc.oneof<Array<fc.Arbitrary<BadReshard>>>(
    fc.constant<BadReshard>({ req: { add: [], remove: [] }, words: /at least one shard/ }),
    fc.tuple(known, goodNew).map(([id, n]) => ({
      req: { add: [n, { id, redisUrl: n.redisUrl }], remove: [] },
      words: /add\[1\]\.id: .*already in the placement/,
    })),
    badId.map((id) => ({ req: { add: [{ id, redisUrl: "redis://127.0.0.1:7004" }], remove: [] }, words: /add\[0\]\.id/ })),
    fc
      .tuple(goodNew, badUrl)
      .map(([n, redisUrl]) => ({ req: { add: [{ id: n.id, redisUrl }], remove: [] }, words: /add\[0\]\.redis_url/ })),
    goodNew.map((n) => ({ req: { add: [n, n], remove: [] }, words: /added twice/ })),
    unknown.map((id) => ({ req: { add: [], remove: [id] }, words: /remove\[0\]: .*not in the placement/ })),
    known.map((id) => ({ req: { add: [], remove: [id, id] }, words: /removed twice/ })),
    fc.constant<BadReshard>({ req: { add: [], remove: [...shardIds] }, words: /leaves no shard/ }),
  );
}

/** Encoded Reshard requests with invalid UTF-8 or an undecodable tail. */
export const rawReshard: fc.Arbitrary<Buffer> = fc
  .oneof(invalidUtf8Field(ReshardRequestSchema), undecodableTail(ReshardRequestSchema))
  .map((bad) => Buffer.from([...toBinary(ReshardRequestSchema, create(ReshardRequestSchema, { remove: ["no-such-shard"] })), ...bad]));

// ---- credentials -------------------------------------------------------------------------

const PRINTABLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));

/** `authorization` header values that name no known token (undefined: no header at all). */
export function unknownCredential(tokens: readonly string[]): fc.Arbitrary<string | undefined> {
  const real = fc.constantFrom(...tokens);
  return fc
    .oneof(
      fc.constant(undefined),
      fc.string({ unit: fc.constantFrom(...PRINTABLE), minLength: 1, maxLength: 100 }).map((t) => `Bearer ${t}`),
      fc.string({ unit: fc.constantFrom(...PRINTABLE, " "), maxLength: 100 }),
      fc.constantFrom("", "Bearer", "Bearer ", "bearer", "Token"),
      real.map((t) => `Basic ${t}`),
      real,
      real.map((t) => `Bearer ${t}x`),
      real.map((t) => `Bearer ${t.slice(0, -1)}`),
      real.map((t) => `Bearer ${t.toUpperCase()}`),
      real.map((t) => `Bearer ${t} ${t}`),
      real.map((t) => `Bearer${t}`),
    )
    .filter((h) => h === undefined || !tokens.includes(/^Bearer\s+(\S+)$/i.exec(h)?.[1] ?? ""));
}
