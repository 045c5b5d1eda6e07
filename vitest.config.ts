import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    teardownTimeout: 10_000,
    // Integration tests spawn real servers; two cores do not like more than two forks at once.
    pool: "forks",
    maxWorkers: 2,
  },
});
