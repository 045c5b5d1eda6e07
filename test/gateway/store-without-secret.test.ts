import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startGateway } from "../../src/apps/gateway/index.js";
import { ErrorCode, startBridge } from "../../src/index.js";
import type { Logger } from "../../src/util/logger.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";
import { inProcessEntry } from "../helpers/in-process.js";

/**
 * Without a cluster secret nothing in the store can be told from what another writer of it planted
 * (session records that send a session's requests, with its credential, elsewhere): a store is
 * refused without one unless the operator says the store is private (`--insecure-store`). Then it
 * starts (one replica with a store is valid), and the operator is told what half works, once.
 */

preloadCliInProcess();

function capturing(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => undefined;
  return { warnings, debug: none, info: none, error: none, warn: (message) => warnings.push(message) };
}

async function warningsWith(clusterSecret: Uint8Array | undefined): Promise<string[]> {
  await using bridge = await startBridge({
    servers: { idle: inProcessEntry("normal", { lazy: true }) },
    wait: false,
  });
  const logger = capturing();
  // Nothing listens on port 1: the store is down, which the gateway survives (and says, separately).
  const gateway = await startGateway({
    bridge,
    store: "redis://127.0.0.1:1",
    clusterSecret,
    insecureStore: clusterSecret === undefined,
    logger,
  });
  await gateway.close();
  return logger.warnings;
}

describe("serve --store without --cluster-secret-file", () => {
  it("is refused, saying why and what to give (library and CLI), before anything starts", async () => {
    await using bridge = await startBridge({
      servers: { idle: inProcessEntry("normal", { lazy: true }) },
      wait: false,
    });
    const refused = await startGateway({ bridge, store: "redis://127.0.0.1:1" }).then(
      () => undefined,
      (error: unknown) => error as { code?: string; message: string },
    );
    expect(refused?.code).toBe(ErrorCode.ConfigInvalid);
    expect(refused?.message).toContain("--cluster-secret-file");
    expect(refused?.message).toContain("--insecure-store");
    expect(refused?.message).toContain("plant session records");

    const home = emptyHome();
    // A server that would leave a mark if it were started: nothing may start before the refusal.
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { normal: stdioEntry("normal") } }));
    const run = await runCliInProcess(
      ["serve", "--http", "127.0.0.1:0", "-c", join(home, "mcp.json"), "--store", "redis://127.0.0.1:1"],
      { cwd: home, env: cliEnv(home) },
    );
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("not used without a cluster secret");
    expect(run.stderr).toContain("--insecure-store");
    expect(run.stderr).not.toContain("listening");
  }, 30_000);

  it("with --insecure-store it starts, and warns that replicas cannot forward to each other", async () => {
    // In parallel: each start waits (bounded) for the store that is not there.
    const [without, given] = await Promise.all([warningsWith(undefined), warningsWith(randomBytes(32))]);
    expect(without.filter((w) => w.includes("without a cluster secret"))).toEqual([
      expect.stringContaining("Give every replica the same --cluster-secret-file"),
    ]);
    expect(given).not.toContainEqual(expect.stringContaining("without a cluster secret"));
  }, 30_000);
});
