import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ConsistencyTokenSchema } from "@ladder/proto/leaderboard/v1/common_pb";
import { decodeConsistencyToken, encodeConsistencyToken, mergeConsistencyTokens, TokenMerger } from "./consistency.js";
import { Session } from "./session.js";

const token = (...pairs: [number, bigint][]) => encodeConsistencyToken(new Map(pairs));

describe("client > consistency tokens", () => {
  it("encodes the ConsistencyToken message as unpadded base64url, partitions ascending", () => {
    const t = token([7, 12n], [3, 40n]);
    const expected = toBinary(
      ConsistencyTokenSchema,
      create(ConsistencyTokenSchema, {
        offsets: [
          { partition: 3, offset: 40n },
          { partition: 7, offset: 12n },
        ],
      }),
    );
    expect(t).toBe(Buffer.from(expected).toString("base64url"));
    expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeConsistencyToken(t)).toEqual(
      new Map([
        [3, 40n],
        [7, 12n],
      ]),
    );
    expect(encodeConsistencyToken(new Map())).toBe("");
  });

  it("merges tokens by the largest offset of each partition, in any order", () => {
    const a = token([1, 10n], [2, 5n]);
    const b = token([2, 9n], [3, 1n]);
    const c = token([1, 4n]);
    const merged = decodeConsistencyToken(mergeConsistencyTokens(a, b, c));
    expect(merged).toEqual(
      new Map([
        [1, 10n],
        [2, 9n],
        [3, 1n],
      ]),
    );
    for (const order of [
      [c, b, a],
      [b, a, c],
      [a, a, b, c, c],
    ])
      expect(mergeConsistencyTokens(...order)).toBe(mergeConsistencyTokens(a, b, c));
    expect(mergeConsistencyTokens("", a)).toBe(a);
    expect(mergeConsistencyTokens()).toBe("");
  });

  it("refuses what is not a token, and keeps the newest such token as it came until a readable one arrives", () => {
    expect(() => decodeConsistencyToken("not a token!")).toThrow(/base64url/);
    expect(() => decodeConsistencyToken("")).toThrow();
    const m = new TokenMerger().observe(token([1, 10n]));
    expect(m.observe("opaque-v2").token).toBe("opaque-v2");
    expect(decodeConsistencyToken(m.observe(token([2, 3n])).token)).toEqual(
      new Map([
        [1, 10n],
        [2, 3n],
      ]),
    );
  });
});

describe("client > session", () => {
  /** A client whose calls record their requests; writes answer with the tokens queued. */
  function recordingClient(answers: string[]) {
    const sent: Array<[string, Record<string, unknown>]> = [];
    const writes = new Set(["submitScores", "deletePlayer", "deleteBoard"]);
    const call = (name: string) => async (req: Record<string, unknown>) => {
      sent.push([name, req]);
      return writes.has(name) ? { consistencyToken: answers.shift() ?? "" } : {};
    };
    const calls = (names: string[]) => Object.fromEntries(names.map((n) => [n, call(n)]));
    const client = {
      ingest: calls(["submitScores", "deletePlayer"]),
      leaderboard: calls([
        "getTop",
        "getRank",
        "getAround",
        "listPeriods",
        "getRanks",
        "getStanding",
        "getCount",
        "getEntryAtRank",
        "getHistogram",
        "getApproximateRank",
      ]),
      admin: calls([
        "rebuildShards",
        "listRebuilds",
        "createBoard",
        "getBoard",
        "listBoards",
        "updateBoard",
        "deleteBoard",
        "getClusterStatus",
      ]),
    };
    return { client: client as unknown as ConstructorParameters<typeof Session>[0], sent };
  }

  it("sends every acknowledged write's token with its next reads, merged", async () => {
    const w1 = token([1, 10n]);
    const w2 = token([2, 20n]);
    const erase = token([1, 11n]);
    const { client, sent } = recordingClient([w1, w2, erase]);
    const s = new Session(client);
    await s.leaderboard.getTop({ board: "b" });
    await s.ingest.submitScores({ updates: [] });
    await s.leaderboard.getRank({ board: "b", playerId: "p" });
    await s.ingest.submitScores({ updates: [] });
    await s.ingest.deletePlayer({ playerId: "p" });
    await s.leaderboard.getRanks({ board: "b", playerIds: ["p"], consistencyToken: token([5, 1n]) });
    await s.leaderboard.listPeriods({ board: "b" }); // takes no token
    const tokens = sent.map(([name, req]) => [
      name,
      req.consistencyToken === undefined ? "none" : req.consistencyToken === "" ? "" : decodeConsistencyToken(String(req.consistencyToken)),
    ]);
    expect(tokens).toEqual([
      ["getTop", ""],
      ["submitScores", "none"],
      ["getRank", new Map([[1, 10n]])],
      ["submitScores", "none"],
      ["deletePlayer", "none"],
      [
        "getRanks",
        new Map([
          [1, 11n],
          [2, 20n],
          [5, 1n],
        ]),
      ], // the session's and the request's own
      ["listPeriods", "none"],
    ]);
    expect(decodeConsistencyToken(s.consistencyToken)).toEqual(
      new Map([
        [1, 11n],
        [2, 20n],
      ]),
    );
  });

  it("takes the token of a DeleteBoard answer and tokens given by hand", async () => {
    const { client, sent } = recordingClient([token([0, 3n], [1, 3n])]);
    const s = new Session(client);
    await s.admin.deleteBoard({ name: "b" });
    s.observe(token([9, 99n]));
    await s.leaderboard.getCount({ board: "b" });
    expect(decodeConsistencyToken(String(sent[1]![1].consistencyToken))).toEqual(
      new Map([
        [0, 3n],
        [1, 3n],
        [9, 99n],
      ]),
    );
  });
});
