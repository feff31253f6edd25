import { defineConfig } from "vitest/config";

// Two projects: unit tests (*.test.ts beside the code, no services) and integration tests
// (*.int.test.ts) against a real Kafka broker and real Redis servers started once for the
// run by test/global-setup.ts. Integration files run one at a time: they share the broker
// and the machine's two cores, and each uses its own topic and key namespace.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["**/src/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: ["**/node_modules/**"],
          globalSetup: ["test/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
    ],
  },
});
