import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (measured on two cores), started first: a long file started last would
 * run alone at the end while the other worker sits idle. A clean checkout has no durations of a last run
 * for vitest to order by (it then takes the largest files first); the files not listed keep its order.
 */
const LONGEST_FIRST = [
  "test/gateway/backlog.test.ts",
  "test/daemon/daemon.test.ts",
  "test/readme.test.ts",
  "test/docs.test.ts",
  "test/examples/hosts.test.ts",
  "test/auth/refresh.test.ts",
  "test/cli/cli.test.ts",
  "test/gateway/profiles.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // A stable sort: the files not listed keep vitest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: LongestFirst },
  },
});
