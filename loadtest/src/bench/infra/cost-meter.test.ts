import { describe, expect, it } from "vitest";
import { costDelta, idleRates, perUnit, readCosts, type CostReading } from "./cost-meter.js";

const reading = (over: Partial<CostReading>): CostReading => ({
  wallS: 0,
  routerS: 0,
  redisS: 0,
  redisScripts: 0,
  clientS: 0,
  machineS: 0,
  othersS: 0,
  ...over,
});

describe("bench > batch > cost meter", () => {
  it("reads every probe and the clock", async () => {
    const probes = {
      routerS: async () => 1,
      redisS: async () => 2,
      redisScripts: async () => 3,
      clientS: async () => 4,
      machineS: async () => 5,
      othersS: async () => 6,
    };
    expect(await readCosts(probes, () => 1500)).toEqual({
      wallS: 1.5,
      routerS: 1,
      redisS: 2,
      redisScripts: 3,
      clientS: 4,
      machineS: 5,
      othersS: 6,
    });
  });

  it("charges a block's units with what it added over the rest rates", () => {
    const quiet = costDelta(
      reading({ wallS: 10 }),
      reading({ wallS: 12, routerS: 0.1, redisS: 0.02, redisScripts: 4, machineS: 0.4, othersS: 0.2 }),
    );
    const idle = idleRates(quiet);
    expect(idle).toEqual({ routerS: 0.05, redisS: 0.01, redisScripts: 2, clientS: 0, machineS: 0.2, othersS: 0.1 });
    // 10 units in 2 s: the router used 1.1 s (0.1 of it at rest), Redis 0.22 s, 606 scripts (4 at rest)
    const block = reading({ wallS: 2, routerS: 1.1, redisS: 0.22, redisScripts: 604, clientS: 0.5, machineS: 3, othersS: 0.5 });
    expect(perUnit(block, 10, idle)).toEqual({
      wallMs: 200,
      routerMs: 100,
      redisMs: 20,
      redisScripts: 60,
      clientMs: 50,
      machineCores: 1.5,
      othersCores: 0.25,
    });
  });

  it("counts nothing at rest when the interval is empty", () => {
    expect(idleRates(reading({ routerS: 1 })).routerS).toBe(0);
  });
});
