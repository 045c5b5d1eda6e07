import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs, until } from "../helpers/wait.js";

/**
 * The gateway serves before its upstream servers are up (serve does not await ready): /readyz says
 * when it is worth traffic, and a server coming up is news for resources and prompts too.
 */

const tempDir = tempDirs("mcp-bridge-readiness-");
let bridge: Bridge | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await bridge?.close();
  gateway = undefined;
  bridge = undefined;
});

async function readyz(): Promise<number> {
  return (await fetch(new URL("/readyz", gateway?.url))).status;
}

describe("gateway readiness while upstream servers start", () => {
  it("is ready with nothing to wait for: only lazy servers", async () => {
    bridge = await startBridge({ servers: { idle: inProcessEntry("normal", { lazy: true }) }, wait: false });
    gateway = await startGateway({ bridge });
    expect(await readyz()).toBe(200);
  }, 30_000);

  it("is not ready while the only server connects, ready once it is up; clients hear of its resources and prompts", async () => {
    const gate = join(tempDir(), "gate");
    bridge = await startBridge({
      servers: { late: stdioEntry("slow-start", {}, ["--until-file", gate]) },
      wait: false,
    });
    gateway = await startGateway({ bridge });
    expect(await readyz()).toBe(503);
    const heard = { resources: 0, prompts: 0 };
    const client = new Client(
      { name: "readiness-test", version: "1.0.0" },
      {
        versionNegotiation: { mode: "legacy" },
        listChanged: {
          resources: { autoRefresh: false, onChanged: () => heard.resources++ },
          prompts: { autoRefresh: false, onChanged: () => heard.prompts++ },
        },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    try {
      writeFileSync(gate, "");
      await until(() => heard.resources > 0 && heard.prompts > 0, 20_000);
      expect(await readyz()).toBe(200);
    } finally {
      await client.close();
    }
  }, 30_000);

  it("is not ready while one of two servers still connects, though the other is up (a partial catalog)", async () => {
    const gate = join(tempDir(), "gate");
    bridge = await startBridge({
      servers: {
        quick: inProcessEntry("normal"),
        late: stdioEntry("slow-start", {}, ["--until-file", gate]),
      },
      wait: false,
    });
    gateway = await startGateway({ bridge });
    const running = bridge;
    await until(() => running.servers().some((s) => s.name === "quick" && s.state === "connected"), 20_000);
    expect(await readyz()).toBe(503);
    writeFileSync(gate, "");
    await until(() => running.servers().every((s) => s.state === "connected"), 20_000);
    expect(await readyz()).toBe(200);
  }, 30_000);

  it("answers a REST listing once a server still connecting is up (a REST client has no list_changed)", async () => {
    const gate = join(tempDir(), "gate");
    bridge = await startBridge({
      servers: { late: stdioEntry("slow-start", {}, ["--until-file", gate]) },
      wait: false,
    });
    gateway = await startGateway({ bridge });
    const base = gateway.url.replace(/\/mcp$/, "");
    // Asked while the server connects: the answer waits for it, then lists its tools.
    const [listing, document] = await Promise.all([
      fetch(`${base}/tools?format=mcp`).then((r) => r.json() as Promise<{ tools: unknown[] }>),
      fetch(`${base}/openapi.json`).then((r) => r.json() as Promise<{ paths: object }>),
      Promise.resolve().then(() => writeFileSync(gate, "")),
    ]);
    expect(listing.tools.length).toBeGreaterThan(0);
    expect(Object.keys(document.paths).length).toBeGreaterThan(0);
  }, 30_000);
});
