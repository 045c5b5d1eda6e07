import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SpanStatusCode } from "@opentelemetry/api";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import { ServerOutput } from "../../src/connection/server-output.js";
import { type ServerLogMessage, startBridge } from "../../src/index.js";
import { silentLogger } from "../../src/util/logger.js";
import { MIN_SECRET_CHARS, SecretMask } from "../../src/util/redact.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCliInProcess } from "../helpers/cli.js";
import { otelHarness } from "../telemetry/otel.js";

/** A secret that reaches the server through `${VAR}`, under a harmless variable name. */
const SECRET = "tenant-7f3a9c0d-SECRET";
/** A regex-special secret: built into a pattern unescaped, it would match other text or throw. */
const SPECIAL = "p(a)ss.*[x]+?$^{2}|\\d";
const HOST_ENV = { TENANT_ID: SECRET, WEIRD_PASSWORD: SPECIAL };

const logsServer = {
  logs: stdioEntry("logs", { env: { TENANT: "${TENANT_ID}", PASSWORD: "${WEIRD_PASSWORD}" } }),
};

function capture() {
  const lines: string[] = [];
  const keep = (message: string, fields?: unknown) => lines.push(message + JSON.stringify(fields ?? {}));
  return { lines, logger: { debug: keep, info: keep, warn: keep, error: keep } };
}

describe("server log messages (notifications/message) carrying a secret", () => {
  it("reach the library logger and the serverLog event masked", async () => {
    const { lines, logger } = capture();
    const events: ServerLogMessage[] = [];
    await using bridge = await startBridge({ servers: logsServer, env: HOST_ENV, logger });
    bridge.on("serverLog", (message) => events.push(message));
    const result = await bridge.call("mcp_logs_chatty", { tag: `${SECRET} and ${SPECIAL}` });
    // The tool's result is the server's answer to the model: left as it is.
    expect(result.text).toContain(SECRET);
    await expect.poll(() => events.length).toBe(3);
    const seen = JSON.stringify([events, lines]);
    expect(seen).toContain("from *** and ***");
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toContain(SPECIAL);
  });

  it("are masked on the CLI's stderr (-v)", async () => {
    const home = emptyHome();
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: logsServer }));
    const run = await runCliInProcess(["call", "logs/chatty", `tag=${SECRET}`, "-v", "-c", config], {
      cwd: home,
      env: cliEnv(home, HOST_ENV),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("from ***");
    expect(run.stderr).not.toContain(SECRET);
  });
});

describe("server log messages behind the gateway", () => {
  it("never reach a gateway client, and reach the gateway's log masked", async () => {
    const { lines, logger } = capture();
    const forwarder = new RequestForwarder();
    await using bridge = await startBridge({ servers: logsServer, env: HOST_ENV, logger });
    const gateway = await startGateway({ bridge, forwarder });
    try {
      const client = new Client(
        { name: "downstream", version: "1.0.0" },
        { versionNegotiation: { mode: "legacy" } },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
      const heard: string[] = [];
      client.setNotificationHandler("notifications/message", (n) => {
        heard.push(JSON.stringify(n.params));
      });
      await client.setLoggingLevel("debug");
      await client.callTool({ name: "mcp_logs_chatty", arguments: { tag: SECRET } });
      await expect.poll(() => lines.join("\n")).toContain("from ***");
      expect(lines.join("\n")).not.toContain(SECRET);
      // Nothing ties an upstream log message to the call that caused it: no client gets it.
      expect(heard).toEqual([]);
      await client.close();
    } finally {
      await gateway.close();
    }
  });
});

describe("server stderr", () => {
  const server = (script: string) => ({
    command: process.execPath,
    args: ["-e", script],
    env: { API_TOKEN: "${TENANT_ID}" },
  });

  it("a secret written in two chunks of one line is masked", async () => {
    const script = `const s = process.env.API_TOKEN; process.stderr.write('token ' + s.slice(0, 6));
      setTimeout(() => { process.stderr.write(s.slice(6) + ' end\\n'); setTimeout(() => process.exit(3), 100); }, 150);`;
    await using bridge = await startBridge({ servers: { split: server(script) }, env: HOST_ENV });
    const tail = bridge.server("split")?.stderrTail ?? [];
    expect(tail.join("\n")).toContain("token *** end");
  });

  it("a secret cut by the transport inside an overlong line is masked, not shown in part", async () => {
    // 8190 characters, then the secret's first half: the transport passes the piece on before the rest.
    const script = `const s = process.env.API_TOKEN; process.stderr.write('x'.repeat(8190) + s.slice(0, 11));
      setTimeout(() => { process.stderr.write(s.slice(11) + ' end\\n'); setTimeout(() => process.exit(3), 100); }, 150);`;
    await using bridge = await startBridge({ servers: { long: server(script) }, env: HOST_ENV });
    const tail = (bridge.server("long")?.stderrTail ?? []).join("\n");
    expect(tail).toContain("x");
    expect(tail).not.toContain(SECRET.slice(0, 11));
    expect(tail).not.toContain(SECRET.slice(11));
  });

  it("property: however a line is cut into pieces, no secret survives in the kept lines", () => {
    const mask = new SecretMask();
    mask.add([SECRET, SPECIAL]);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 9000 }),
        fc.constantFrom(SECRET, SPECIAL),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 4 }),
        (prefix, secret, cuts) => {
          const output = new ServerOutput("s", silentLogger, mask.text);
          const line = `${prefix}${secret} end`;
          const points = [...new Set(cuts.map((cut) => cut % line.length))].sort((a, b) => a - b);
          let from = 0;
          for (const point of points) {
            output.onStderrLine(line.slice(from, point), false);
            from = point;
          }
          output.onStderrLine(line.slice(from), true);
          expect(output.stderr().join("")).not.toContain(secret);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the redaction itself", () => {
  it(`values shorter than ${MIN_SECRET_CHARS} characters are not masked (they would turn text into noise)`, () => {
    const mask = new SecretMask();
    mask.add(["on", "42", "abc", "abcd"]);
    expect(mask.text("on 42 abc abcd")).toBe("on 42 abc ***");
  });

  it("property: regex-special secrets are masked literally and nothing else is touched", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: MIN_SECRET_CHARS, maxLength: 30 }),
        fc.string({ maxLength: 40 }),
        (secret, other) => {
          fc.pre(!other.includes(secret) && !secret.includes("*"));
          const mask = new SecretMask();
          mask.add([secret]);
          const masked = mask.text(`${other}|${secret}|${other}`);
          expect(masked).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("OpenTelemetry span status", () => {
  const otel = otelHarness();
  afterAll(() => otel.close());

  it("an upstream error message carrying a secret is masked in the span status", async () => {
    await using bridge = await startBridge({
      servers: { echo: stdioEntry("echoes-meta", { env: { TENANT: "${TENANT_ID}" } }) },
      env: HOST_ENV,
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    });
    // A resource the server does not have: its JSON-RPC error quotes the URI it was asked for.
    const failure = await bridge.readResource(`memo://${SECRET}`, { server: "echo" }).catch((e: Error) => e);
    expect(String(failure)).not.toContain(SECRET);
    const errors = otel.spans().filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(errors.length).toBeGreaterThan(0);
    const statuses = JSON.stringify(otel.spans().map((span) => span.status));
    expect(statuses).toContain("***");
    expect(statuses).not.toContain(SECRET);
  });
});

describe("mcp-bridge add --url", () => {
  const url = "https://user:PASS-w0rd-9f@example.com/mcp?api_key=KEY-5ec2e7&page=2";

  it.each([[[]], [["--json"]]])("prints neither the password nor the key (%j)", async (extra: string[]) => {
    const home = emptyHome();
    const run = await runCliInProcess(["add", "docs", "--url", url, ...extra], {
      cwd: home,
      env: cliEnv(home),
    });
    expect(run.code).toBe(0);
    const output = run.stdout + run.stderr;
    expect(output).not.toContain("PASS-w0rd-9f");
    expect(output).not.toContain("KEY-5ec2e7");
    expect(output).toContain("example.com/mcp");
  });
});

describe("OAuth access tokens", () => {
  it("a token the bridge sends becomes a secret masked like a configured one", async () => {
    const { noteTokens } = await import("../../src/bridge/servers/server-record.js");
    const mask = new SecretMask();
    const sent: string[] = [];
    const fetch = noteTokens(async (url) => {
      sent.push(String(url));
      return new Response("ok");
    }, mask);
    await fetch("http://127.0.0.1:1/mcp", { headers: { Authorization: "Bearer at-9f8e7d6c5b" } });
    expect(sent).toEqual(["http://127.0.0.1:1/mcp"]);
    expect(mask.text("server said: token at-9f8e7d6c5b is expired")).toBe(
      "server said: token *** is expired",
    );
  });
});
