import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// The container tests (`npm run test:containers`, which starts a Docker engine and builds the images
// first: scripts/test-containers.sh), one file at a time. "harness": the integration tests'
// infrastructure through testcontainers on the images built here (test/global-setup.ts takes the
// container path when an engine answers), then the end-to-end cluster test on it. "deployments": the
// compose deployment, and the images' build cache; they start their own containers, so no global setup.
// the packages' sources (the "@ladder/source" condition of their exports), not their builds in dist/
const source = { ssr: { resolve: { conditions: ["@ladder/source", ...defaultServerConditions] } } };
const timeouts = { testTimeout: 600_000, hookTimeout: 600_000 };

export default defineConfig({
  test: {
    projects: [
      {
        ...source,
        test: {
          name: "harness",
          include: ["deploy/local/src/infra.int.test.ts", "test/cluster.int.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 0 },
          ...timeouts,
        },
      },
      {
        ...source,
        test: {
          name: "deployments",
          include: ["test/*.containers.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          ...timeouts,
        },
      },
    ],
  },
});
