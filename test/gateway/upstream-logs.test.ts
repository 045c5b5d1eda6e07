import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_BURST } from "../../src/apps/gateway/forwarding/upstream-logs.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { textOf as attachedText, attachSession, toolNamed } from "../helpers/attach-client.js";
import { CLI, cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";
import { type Era, textOf } from "./client.js";

interface Heard {
  readonly level: string;
  readonly logger?: string;
  readonly data: unknown;
}

/** A downstream client of the gateway that records the log messages it gets. */
async function listeningClient(url: string, mode: Era) {
  const client = new Client(
    { name: "log-reader", version: "1.0.0" },
    { versionNegotiation: { mode: mode === "2025-11-25" ? "legacy" : { pin: mode } } },
  );
  const heard: Heard[] = [];
  client.setNotificationHandler("notifications/message", (n) => {
    heard.push(n.params as Heard);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, { heard, [Symbol.asyncDispose]: () => client.close() });
}

const upstreamData = (heard: readonly Heard[]) =>
  heard.filter((h) => h.logger !== "mcp-bridge").map((h) => String(h.data));

describe("upstream log messages tied to a call (Streamable HTTP upstream)", () => {
  let upstream: HttpFixture;
  let bridge: Bridge;
  let gateway: Gateway;
  beforeAll(async () => {
    upstream = await startHttpFixture("logs");
    bridge = await startBridge({ servers: { logs: { url: upstream.url } } });
    await bridge.ready();
    gateway = await startGateway({ bridge });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
    await upstream?.close();
  });

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`two clients calling at once each get their own call's messages, attributed to the server (${mode})`, async () => {
      await using a = await listeningClient(gateway.url, mode);
      await using b = await listeningClient(gateway.url, mode);
      // A 2026-07-28 request asks for log messages in its envelope; a 2025 client gets them by default.
      const asking = mode === "2026-07-28" ? { _meta: { [LOG_LEVEL_META_KEY]: "debug" } } : {};
      const [ra, rb] = await Promise.all([
        a.callTool({ name: "mcp_logs_paced", arguments: { tag: "A" }, ...asking }),
        b.callTool({ name: "mcp_logs_paced", arguments: { tag: "B" }, ...asking }),
      ]);
      expect(textOf(ra)).toBe("paced A");
      expect(textOf(rb)).toBe("paced B");
      // Sent on the call's own stream, before its result: all there once the call returned.
      expect(a.heard).toEqual(
        ["A 1", "A 2", "A 3"].map((data) => ({ level: "info", logger: "logs/paced", data })),
      );
      expect(b.heard).toEqual(
        ["B 1", "B 2", "B 3"].map((data) => ({ level: "info", logger: "logs/paced", data })),
      );
    });
  }

  it("a 2026-07-28 request that names no level gets no messages", async () => {
    await using client = await listeningClient(gateway.url, "2026-07-28");
    await client.callTool({ name: "mcp_logs_paced", arguments: { tag: "quiet" } });
    expect(client.heard).toEqual([]);
  });

  it("logging/setLevel filters what a client gets; another client keeps its own level", async () => {
    await using strict = await listeningClient(gateway.url, "2025-11-25");
    await using open = await listeningClient(gateway.url, "2025-11-25");
    await strict.setLoggingLevel("error");
    await strict.callTool({ name: "mcp_logs_chatty", arguments: { tag: "s" } });
    await open.callTool({ name: "mcp_logs_chatty", arguments: { tag: "o" } });
    expect(strict.heard).toEqual([{ level: "error", logger: "logs/chatty", data: "error from s" }]);
    expect(upstreamData(open.heard)).toEqual(["debug from o", "info from o", "error from o"]);
  });

  it("a flood is cut: at most a burst passes, and the client is told how many were dropped", async () => {
    await using client = await listeningClient(gateway.url, "2025-11-25");
    const count = 2000;
    const result = await client.callTool({ name: "mcp_logs_flood", arguments: { count } });
    expect(textOf(result)).toBe(`flooded ${count}`);
    const passed = upstreamData(client.heard);
    const notices = client.heard.filter((h) => h.logger === "mcp-bridge");
    expect(passed.length).toBeGreaterThanOrEqual(LOG_BURST);
    expect(passed.length).toBeLessThan(count);
    expect(notices.length).toBeGreaterThan(0);
    const dropped = notices.reduce((sum, n) => sum + Number(/^(\d+) /.exec(String(n.data))?.[1] ?? 0), 0);
    expect(passed.length + dropped).toBe(count);
    // The first messages are the ones that passed, in order.
    expect(passed.slice(0, 3)).toEqual(["flood 0", "flood 1", "flood 2"]);
  });

  it("control characters in a message do not reach the client", async () => {
    await using client = await listeningClient(gateway.url, "2025-11-25");
    await client.callTool({ name: "mcp_logs_chatty", arguments: { tag: "\u001b[2J\u0007x" } });
    const texts = upstreamData(client.heard);
    expect(texts).toHaveLength(3);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point of the check.
    for (const text of texts) expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });
});

describe("upstream log messages tied to a call (2026-07-28 upstream)", () => {
  it("an upstream that logs only when asked (its entry's logLevel) reaches the calling client", async () => {
    await using upstream = await startHttpFixture("logs", ["--modern"]);
    const bridge = await startBridge({ servers: { logs: { url: upstream.url, logLevel: "info" } } });
    try {
      await bridge.ready();
      const gateway = await startGateway({ bridge });
      try {
        await using client = await listeningClient(gateway.url, "2025-11-25");
        await client.callTool({ name: "mcp_logs_chatty", arguments: { tag: "m" } });
        // The upstream sends info and up, as configured; the client (no level set) gets them all.
        expect(client.heard).toEqual([
          { level: "info", logger: "logs/chatty", data: "info from m" },
          { level: "error", logger: "logs/chatty", data: "error from m" },
        ]);
      } finally {
        await gateway.close();
      }
    } finally {
      await bridge.close();
    }
  });
});

describe("serve --stdio: the gateway's only client gets every upstream log message", () => {
  let home: string;
  beforeAll(() => {
    home = emptyHome();
    // A stdio upstream: nothing ties its messages to a call, so only the one-client rule delivers them.
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { logs: stdioEntry("logs") } }));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("gets a message logged after its call ended, at its level, attributed", async () => {
    const client = new Client({ name: "stdio-host", version: "1.0.0" });
    const heard: Heard[] = [];
    client.setNotificationHandler("notifications/message", (n) => {
      heard.push(n.params as Heard);
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--stdio", "-c", join(home, "mcp.json")],
        cwd: home,
        env: cliEnv(home),
        stderr: "ignore",
      }),
    );
    try {
      let tools: string[] = [];
      await until(async () => {
        tools = (await client.listTools()).tools.map((t) => t.name);
        return tools.includes("logs_later");
      }, 20_000);
      await client.setLoggingLevel("error");
      const started = await client.callTool({ name: "logs_later", arguments: { tag: "after" } });
      expect(textOf(started)).toBe("started after");
      await until(() => heard.length > 0, 10_000);
      expect(heard).toEqual([{ level: "error", logger: "logs/later", data: "later from after" }]);
      // Below the client's level: not sent.
      await client.callTool({ name: "logs_chatty", arguments: { tag: "c" } });
      await until(() => heard.length > 1, 10_000);
      expect(heard.slice(1)).toEqual([{ level: "error", logger: "logs/chatty", data: "error from c" }]);
    } finally {
      await client.close();
    }
  });
});

describe("attach: a session is one of many clients of the daemon", () => {
  let home: string;
  let runtime: string;
  beforeAll(() => {
    home = emptyHome();
    runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-attach-logs-"));
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { logs: stdioEntry("logs") } }));
  });
  afterAll(async () => {
    const env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
    await runCli(["daemon", "stop", "-c", join(home, "mcp.json")], { cwd: home, env }).catch(() => undefined);
    rmSync(runtime, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it("messages nothing ties to its call do not reach the session (they could be another's)", async () => {
    const env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
    await using session = attachSession(["-c", join(home, "mcp.json")], { cwd: home, env });
    await session.initialize();
    const later = await toolNamed(session, "later");
    const started = await session.request("tools/call", { name: later, arguments: { tag: "t" } });
    expect(attachedText(started)).toBe("started t");
    // The message comes 50 ms after the answer; a call made after it proves it had time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await session.request("tools/call", {
      name: await toolNamed(session, "chatty"),
      arguments: { tag: "u" },
    });
    expect(session.notifications.filter((n) => n.method === "notifications/message")).toEqual([]);
  });
});
