import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import {
  type LocalHttpServer,
  startFailingHttpServer,
  startGarbageHttpServer,
  startMcpHttpServer,
  startSilentHttpServer,
} from "../helpers/http-servers.js";

type Kind = "good" | "bad-command" | "bad-url" | "http-500" | "garbage" | "never-answers";

let good: LocalHttpServer;
let failing: LocalHttpServer;
let garbage: LocalHttpServer;
let silent: LocalHttpServer;

beforeAll(async () => {
  [good, failing, garbage, silent] = await Promise.all([
    startMcpHttpServer(),
    startFailingHttpServer(),
    startGarbageHttpServer(),
    startSilentHttpServer(),
  ]);
});

afterAll(async () => {
  await Promise.all([good, failing, garbage, silent].map((server) => server?.close()));
});

function entryFor(kind: Kind): Record<string, unknown> {
  // Only the server that never answers needs a short startup timeout to fail; every other server
  // gets a generous one, so a slow, loaded machine cannot turn a good server into a timed-out one
  // and each failing server must fail for its own reason, not for the clock.
  const startupTimeout = kind === "never-answers" ? "300ms" : "30s";
  const common = { startupTimeout, restart: { enabled: false } };
  switch (kind) {
    case "good":
      return { ...common, transport: "http", url: good.url };
    case "bad-command":
      return { ...common, command: "/nonexistent/mcp-bridge-no-such-server" };
    case "bad-url":
      return { ...common, transport: "http", url: "http://127.0.0.1:1/mcp" };
    case "http-500":
      return { ...common, transport: "http", url: failing.url };
    case "garbage":
      return { ...common, transport: "http", url: garbage.url };
    case "never-answers":
      return { ...common, transport: "http", url: silent.url };
  }
}

describe("fault isolation", () => {
  it("with N servers of which M fail, exactly N-M connect and their tools work; each failure has a reason", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.constantFrom<Kind>("good", "bad-command", "bad-url", "http-500", "garbage", "never-answers"),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        async (kinds) => {
          const servers = Object.fromEntries(
            kinds.map((kind, index) => [`s${index}-${kind}`, entryFor(kind)]),
          );
          const bridge = await startBridge({ servers, env: {} });
          try {
            const statuses = bridge.servers();
            expect(statuses).toHaveLength(kinds.length);
            for (const [index, kind] of kinds.entries()) {
              const status = statuses[index];
              if (kind === "good") {
                expect(status?.state).toBe("connected");
              } else {
                expect(status?.state).toBe("failed");
                expect(status?.lastError?.message).toContain(`s${index}-${kind}`);
                expect(status?.lastError?.code).toBe(
                  kind === "never-answers" ? "SERVER_START_TIMEOUT" : "SERVER_START_FAILED",
                );
              }
            }
            const goodNames = kinds.flatMap((kind, index) => (kind === "good" ? [`s${index}-${kind}`] : []));
            const results = await Promise.all(
              goodNames.map((server) => bridge.call(`${server}/add`, { a: 2, b: 3 })),
            );
            for (const result of results) expect(result.text).toBe("5");
            expect(bridge.tools()).toHaveLength(goodNames.length);
          } finally {
            await bridge.close();
          }
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);
});
