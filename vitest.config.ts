import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (measured on two cores), started first: a long file started last would
 * run alone at the end while the other worker sits idle. A clean checkout has no durations of a last run
 * for vitest to order by (it then takes the largest files first); the files not listed keep its order.
 */
const LONGEST_FIRST = [
  "test/daemon/daemon.test.ts",
  "test/gateway/backlog.test.ts",
  "test/daemon/attach.test.ts",
  "test/reliability/faults.test.ts",
  "test/cli/cli.test.ts",
  "test/examples/hosts.test.ts",
  "test/docs.test.ts",
  "test/codemode/sandbox-security.test.ts",
  "test/integration/connections.test.ts",
  "test/reliability/secrets.test.ts",
  "test/bridge/reload.test.ts",
  "test/auth/refresh.test.ts",
  "test/readme.test.ts",
  "test/cli/examples.test.ts",
  "test/cli/chat.test.ts",
  "test/security/trust.test.ts",
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

/**
 * The unit-test folders, whose files start no servers and leave nothing behind in the process: they
 * share one module graph per worker (`isolate: false`), so the code under test is loaded and
 * transformed once per worker instead of once per file (a group of config tests: 30.5 s -> 21.2 s
 * user+sys, 161 s -> 89 s wall). Files that spawn the CLI and servers gain nothing measurable from it
 * (12 CLI test files: 87.6 s vs 87.8 s), so they keep a fresh module graph each, as does any file that
 * changes what the process holds (OTel's globals, process handlers, `process.env`, spies and mocks).
 */
const SHARED = [
  "test/config/**/*.test.ts",
  "test/registry/**/*.test.ts",
  "test/results/**/*.test.ts",
  "test/search/**/*.test.ts",
  "test/policy/**/*.test.ts",
  "test/util/**/*.test.ts",
  "test/adapters/**/*.test.ts",
  "test/errors.test.ts",
  "test/architecture.test.ts",
  "test/public-exports.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: "shared", include: SHARED, isolate: false } },
      { extends: true, test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: SHARED } },
    ],
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
