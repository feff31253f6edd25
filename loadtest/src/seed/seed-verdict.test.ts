import * as grpc from "@grpc/grpc-js";
import { create, type Message } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { serviceDefinition } from "@ladder/client/grpc-stub";
import { GetCountResponseSchema, LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { routerCount, seedProblems, type SeedVerdictInput } from "./seed-verdict.js";

const done: SeedVerdictInput = {
  players: 1000,
  board: "lt",
  router: "127.0.0.1:50051",
  waited: true,
  complete: true,
  count: { total: 1000 },
  shards: ["shard-0", "shard-1", "shard-2"],
  placementEpoch: 3,
};

describe("seed > verdict", () => {
  it("passes when the router counts at least the players seeded", () => {
    expect(seedProblems(done)).toEqual([]);
    expect(seedProblems({ ...done, count: { total: 1500 } })).toEqual([]);
  });

  it("fails when the router counts fewer, refuses, or the shard nodes stalled", () => {
    expect(seedProblems({ ...done, count: { total: 999 } })).toEqual([
      'the router counts 999 players on board "lt", fewer than the 1,000 seeded',
    ]);
    expect(seedProblems({ ...done, count: { error: "UNAUTHENTICATED: invalid bearer token" } })[0]).toMatch(
      /did not count board "lt": UNAUTHENTICATED/,
    );
    expect(seedProblems({ ...done, complete: false, count: { total: 999 } })[0]).toMatch(/stopped applying/);
    expect(seedProblems({ ...done, complete: false, count: { error: "DEADLINE_EXCEEDED" } })[0]).toMatch(/stopped applying/);
  });

  it("names the shards it followed when the router counts every player it could not see applied", () => {
    expect(seedProblems({ ...done, complete: false })).toEqual([
      'the router counts every player (1,000 on board "lt"), but the shards this seeder followed (shard-0, shard-1, shard-2: the cluster\'s placement of epoch 3 when it began) did not apply every partition: the placement changed during the load (a shard added or removed)',
    ]);
    expect(seedProblems({ ...done, complete: false, placementEpoch: undefined })).toEqual([
      'the router counts every player (1,000 on board "lt"), but the shards this seeder followed (shard-0, shard-1, shard-2, from LADDER_SHARDS: the cluster had no placement when it began) did not apply every partition: the cluster has other shards',
    ]);
  });

  it("does not judge the count of a seed that did not wait", () => {
    expect(seedProblems({ ...done, waited: false, complete: false, count: undefined })).toEqual([]);
  });
});

describe("seed > the router's count", () => {
  /** A LeaderboardService whose GetCount answers UNAVAILABLE `refusals` times (as a shard catching up does), then `total`. */
  async function router(
    refusals: number,
    total: number,
    code = grpc.status.UNAVAILABLE,
  ): Promise<{ address: string; asked: () => number; stop(): void }> {
    let asked = 0;
    const server = new grpc.Server();
    server.addService(serviceDefinition(LeaderboardService), {
      getCount: (_call: grpc.ServerUnaryCall<unknown, Message>, done: grpc.sendUnaryData<Message>) => {
        asked++;
        if (asked <= refusals) return done({ code, details: "shard-2: shard node is not current, retry" });
        done(null, create(GetCountResponseSchema, { total: BigInt(total) }));
      },
    } as grpc.UntypedServiceImplementation);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    return { address: `127.0.0.1:${port}`, asked: () => asked, stop: () => server.forceShutdown() };
  }

  it("asks again while the router answers UNAVAILABLE, within its patience", async () => {
    const r = await router(3, 1000);
    try {
      expect(await routerCount(r.address, undefined, "lt", 10_000)).toEqual({ total: 1000 });
      expect(r.asked()).toBe(4);
    } finally {
      r.stop();
    }
  });

  it("gives up past its patience, and at once on any other refusal", async () => {
    const slow = await router(1_000, 1000);
    const denied = await router(1, 1000, grpc.status.PERMISSION_DENIED);
    try {
      expect(await routerCount(slow.address, undefined, "lt", 1_200)).toEqual({ error: expect.stringMatching(/^UNAVAILABLE: .*retry/) });
      expect(slow.asked()).toBeGreaterThan(1);
      expect(await routerCount(denied.address, undefined, "lt")).toEqual({ error: expect.stringMatching(/^PERMISSION_DENIED/) });
      expect(denied.asked()).toBe(1);
    } finally {
      slow.stop();
      denied.stop();
    }
  });
});
