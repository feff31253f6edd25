import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Three projects: unit tests (*.test.ts beside the code, no services), then integration tests
// (*.int.test.ts) against a real Kafka broker and real Redis servers started once for the run by
// test/global-setup.ts, in two groups. First, beside the unit tests, the files that check answers and
// state (not timings) run two at a time; then the files whose checks involve time (faults, failover,
// readiness deadlines, staleness bounds, shutdown, rebuild leases, answers under motion, the
// launcher's restart pauses, deadlines of the client library, the gateway's rate limits and the
// browser, the router's stream bounds, ingest's lag bound) run one at a time, alone on the machine's two cores. Files that only wait for an outcome
// (the drift refusals, the broker's own restarts) run in the first group. Each file uses its own
// topic and key namespace.
const TIMED = [
  "test/faults.int.test.ts",
  "test/failover.int.test.ts",
  "test/readiness.int.test.ts",
  "test/shutdown.int.test.ts",
  "test/rebuild-lease.int.test.ts",
  "test/motion.int.test.ts",
  "test/top-cache.int.test.ts",
  "test/read-your-writes.int.test.ts",
  "test/launcher.int.test.ts",
  "client/src/client.int.test.ts",
  "test/gateway.int.test.ts",
  "test/gateway-backpressure.int.test.ts",
  "test/stream-limits.int.test.ts",
  "test/dashboard.int.test.ts",
  "test/partitions.int.test.ts",
  "test/backpressure.int.test.ts",
];
// Tests import the packages' sources (the "@ladder/source" condition of their exports), not their
// builds in dist/; the processes they start run dist/ (test/global-setup.ts builds it first).
const source = { ssr: { resolve: { conditions: ["@ladder/source", ...defaultServerConditions] } } };
const integration = { globalSetup: ["test/global-setup.ts"], testTimeout: 180_000, hookTimeout: 240_000 };

export default defineConfig({
  test: {
    projects: [
      {
        ...source,
        test: {
          name: "unit",
          include: ["**/src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.containers.test.ts", "**/node_modules/**"], // containers: npm run test:containers
          maxWorkers: 2, // a group's projects share one worker setting
          testTimeout: 30_000, // a few unit tests spawn a tool (buf, kubectl, tsc): slow on a busy machine, not wrong
          sequence: { groupOrder: 0 },
        },
      },
      {
        ...source,
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: ["**/node_modules/**", ...TIMED],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          ...integration,
        },
      },
      {
        ...source,
        test: {
          name: "integration-timed",
          include: TIMED,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          ...integration,
        },
      },
    ],
  },
});
