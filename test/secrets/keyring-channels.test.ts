import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SpanStatusCode } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerLogMessage, startBridge } from "../../src/index.js";
import { openSecretStore } from "../../src/util/secret-store.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { tempDirs } from "../helpers/wait.js";
import { otelHarness } from "../telemetry/otel.js";

/**
 * A value from `${keyring:NAME}` is masked on every channel a `${VAR}` value is: the library logger,
 * server log events, span statuses, audit records. The store is the encrypted file here (no D-Bus
 * needed); what is masked does not depend on the store.
 */
const SECRET = "kr-tenant-5e1f0a77-SECRET";
const home = tempDirs("mcpb-keyring-channels-")();
const ENV = {
  PATH: process.env.PATH,
  XDG_CONFIG_HOME: join(home, "config"),
  MCP_BRIDGE_SECRET_STORE: "file",
  MCP_BRIDGE_SECRET_PASSPHRASE: "channels test passphrase",
};
openSecretStore(ENV).set("TENANT", SECRET);
const FROM_KEYRING = { env: { TENANT: "${keyring:TENANT}" } };

function capture() {
  const lines: string[] = [];
  const keep = (message: string, fields?: unknown) => lines.push(message + JSON.stringify(fields ?? {}));
  return { lines, logger: { debug: keep, info: keep, warn: keep, error: keep } };
}

describe("a ${keyring:…} value in output", () => {
  const otel = otelHarness();
  afterAll(() => otel.close());

  it("is masked in the library logger and in server log events", async () => {
    const { lines, logger } = capture();
    const events: ServerLogMessage[] = [];
    await using bridge = await startBridge({
      servers: { logs: stdioEntry("logs", FROM_KEYRING) },
      env: ENV,
      logger,
    });
    bridge.on("serverLog", (message) => events.push(message));
    await bridge.call("mcp_logs_chatty", { tag: SECRET });
    await expect.poll(() => events.length).toBe(3);
    const seen = JSON.stringify([events, lines]);
    expect(seen).toContain("from ***");
    expect(seen).not.toContain(SECRET);
  });

  it("is masked in span statuses", async () => {
    await using bridge = await startBridge({
      servers: { echo: stdioEntry("echoes-meta", FROM_KEYRING) },
      env: ENV,
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    });
    const failure = await bridge.readResource(`memo://${SECRET}`, { server: "echo" }).catch((e: Error) => e);
    expect(String(failure)).not.toContain(SECRET);
    const statuses = JSON.stringify(otel.spans().map((span) => span.status));
    expect(otel.spans().some((span) => span.status.code === SpanStatusCode.ERROR)).toBe(true);
    expect(statuses).toContain("***");
    expect(statuses).not.toContain(SECRET);
  });

  it("is masked in full audit records", async () => {
    const file = join(home, "audit.jsonl");
    const bridge = await startBridge({
      servers: { files: stdioEntry("records-calls", FROM_KEYRING) },
      env: ENV,
      settings: { audit: { file, full: true } },
    });
    try {
      await bridge.call("files/echo", { text: `token is ${SECRET}` });
    } finally {
      await bridge.close();
    }
    const text = readFileSync(file, "utf8");
    expect(text).toContain("token is ***");
    expect(text).not.toContain(SECRET);
  });
});
