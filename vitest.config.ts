import { defaultServerConditions } from "vite";
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Four projects: unit tests (*.test.ts beside the code, no services), then integration tests
// (*.int.test.ts) against a real Kafka broker and real Redis servers started once for the run by
// test/global-setup.ts, in three groups. Each file uses its own topic and key namespace.
//
// 1. Beside the unit tests, the files that check answers and state (not timings) run three at a
//    time: several of them spend most of their time waiting for the clock (a league's periods, a
//    tournament's end, a period's close), which two workers on two cores would leave idle. Files
//    that only wait for an outcome (the drift refusals, the broker's own restarts) run here. The
//    longest start first (LONGEST: measured seconds, the longest first), so that none is left running
//    alone at the end.
//    This group also runs beside the container side of `npm run test:all` (image builds, a compose
//    deployment), so its clusters get a heartbeat TTL of 3 s (`heartbeatTtlMs`, cluster-harness.ts):
//    a shard node starved of CPU for a second is not taken for a dead one. The timed groups, on a
//    calm machine, keep 1 s, which their windows are measured against.
// 2. The files whose checks involve time (readiness deadlines, staleness bounds, rebuild leases, the
//    launcher's restart pauses, deadlines of the client library, the gateway's rate limits and the
//    browser, the router's stream bounds) run in two lanes side by side, one file of each at a time:
//    SENSITIVE holds the files with tight windows (a refusal within a second of a heartbeat, a
//    promotion raced by Sentinel's timers, a stream's stall bound) and TOLERANT files whose checks
//    wait for outcomes with generous bounds, the lightest first, so that the sensitive files run
//    beside light neighbours. The pool of two workers takes the files in the order TimedLanes gives:
//    by the time each would start if every file took the seconds written beside it (measured; a wrong
//    figure only pairs other files, it never drops one).
// 3. The files that load the machine on purpose or hold zero-tolerance windows throughout (network
//    partitions, process and broker kills, answers under motion, ingest's lag bound, no read refused
//    across four live moves that seed from snapshots) run alone.
const SENSITIVE: ReadonlyArray<readonly [string, number]> = [
  ["test/failover.int.test.ts", 55],
  ["test/rebuild-lease.int.test.ts", 61],
  ["test/readiness.int.test.ts", 31],
  ["test/stream-limits.int.test.ts", 26],
  ["test/top-cache.int.test.ts", 15],
  ["test/read-your-writes.int.test.ts", 21],
];
const TOLERANT: ReadonlyArray<readonly [string, number]> = [
  ["test/gateway.int.test.ts", 16],
  ["test/shutdown.int.test.ts", 17],
  ["client/src/client.int.test.ts", 30],
  ["test/dashboard.int.test.ts", 26],
  ["test/gateway-backpressure.int.test.ts", 31],
  ["test/launcher.int.test.ts", 58],
];
const ALONE = [
  "test/partitions.int.test.ts",
  "test/faults.int.test.ts",
  "test/motion.int.test.ts",
  "test/backpressure.int.test.ts",
  "test/reshard.int.test.ts",
];
const LANES = [...SENSITIVE, ...TOLERANT].map(([file]) => file);
const LONGEST: ReadonlyArray<readonly [string, number]> = [
  ["test/leagues.int.test.ts", 116],
  ["test/boards.int.test.ts", 70],
  ["test/tournaments.int.test.ts", 65],
  ["test/close-events.int.test.ts", 61],
  ["test/closes.int.test.ts", 61],
  ["test/snapshot.int.test.ts", 50],
  ["test/readme-tour.int.test.ts", 47],
  ["test/kafka-security.int.test.ts", 40],
];

/**
 * The default order, except the first group's longest files, first and longest first, and the lanes'
 * files: by when each would start with both lanes running side by side.
 */
class TimedLanes extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const longest = new Map(LONGEST);
    const seconds = (spec: TestSpecification) => longest.get(relative(import.meta.dirname, spec.moduleId)) ?? 0;
    const byGroup = (await super.sort(files)).map((spec, i) => ({ spec, i }));
    // a stable sort within the first group's integration project: by LONGEST's seconds, the rest as they were
    const sorted = byGroup
      .sort((a, b) =>
        a.spec.project.name === "integration" && b.spec.project.name === "integration"
          ? seconds(b.spec) - seconds(a.spec) || a.i - b.i
          : a.i - b.i,
      )
      .map(({ spec }) => spec);
    const startAt = new Map<string, number>();
    for (const lane of [SENSITIVE, TOLERANT]) {
      let t = 0;
      for (const [file, seconds] of lane) startAt.set(file, t), (t += seconds);
    }
    const at = (spec: TestSpecification) => startAt.get(relative(import.meta.dirname, spec.moduleId)) ?? 0;
    const lanes = sorted.filter((spec) => spec.project.name === "integration-lanes").sort((a, b) => at(a) - at(b));
    return sorted.map((spec) => (spec.project.name === "integration-lanes" ? lanes.shift()! : spec));
  }
}
// Tests import the packages' sources (the "@ladder/source" condition of their exports), not their
// builds in dist/; the processes they start run dist/ (test/global-setup.ts builds it first).
const source = { ssr: { resolve: { conditions: ["@ladder/source", ...defaultServerConditions] } } };
const integration = { globalSetup: ["test/global-setup.ts"], testTimeout: 180_000, hookTimeout: 240_000 };

export default defineConfig({
  test: {
    sequence: { sequencer: TimedLanes },
    projects: [
      {
        ...source,
        test: {
          name: "unit",
          include: ["**/src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.containers.test.ts", "**/node_modules/**"], // containers: npm run test:containers
          maxWorkers: 3, // a group's projects share one worker setting (the integration files': 1. above)
          isolate: false, // files share a worker's modules: pure code, no services; 4x less CPU than a fresh context per file
          testTimeout: 30_000, // a few unit tests spawn a tool (buf, kubectl, tsc): slow on a busy machine, not wrong
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...source,
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: ["**/node_modules/**", ...LANES, ...ALONE],
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
          ...integration,
          provide: { heartbeatTtlMs: 3000 },
        },
      },
      {
        ...source,
        test: {
          name: "integration-lanes",
          include: LANES,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          ...integration,
          provide: { heartbeatTtlMs: 1000 },
        },
      },
      {
        ...source,
        test: {
          name: "integration-alone",
          include: ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          ...integration,
          provide: { heartbeatTtlMs: 1000 },
        },
      },
    ],
  },
});
