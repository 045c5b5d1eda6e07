import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startGateway } from "../../src/apps/gateway/index.js";
import { startBridge } from "../../src/index.js";
import type { Logger } from "../../src/util/logger.js";
import { inProcessEntry } from "../helpers/in-process.js";

/**
 * A cluster store without a cluster secret starts (one replica with a store is valid), but replicas
 * then cannot forward to each other: the operator is told what half works, once, at start.
 */

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
  const gateway = await startGateway({ bridge, store: "redis://127.0.0.1:1", clusterSecret, logger });
  await gateway.close();
  return logger.warnings;
}

describe("serve --store without --cluster-secret-file", () => {
  it("warns that replicas cannot forward to each other, and says what to give them", async () => {
    // In parallel: each start waits (bounded) for the store that is not there.
    const [without, given] = await Promise.all([warningsWith(undefined), warningsWith(randomBytes(32))]);
    expect(without.filter((w) => w.includes("without a cluster secret"))).toEqual([
      expect.stringContaining("Give every replica the same --cluster-secret-file"),
    ]);
    expect(given).not.toContainEqual(expect.stringContaining("without a cluster secret"));
  }, 30_000);
});
