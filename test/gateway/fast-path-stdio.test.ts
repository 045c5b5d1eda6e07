import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";

// `serve --stdio`'s fast path (src/apps/gateway/fast-path/) answers every line exactly as the SDK
// path does: two gateway processes over the same configuration, one with MCP_BRIDGE_GATEWAY_FAST_PATH=0.

interface StdioGateway {
  readonly child: ChildProcess;
  readonly messages: Record<string, unknown>[];
  send(line: string): void;
}

const children: ChildProcess[] = [];

function startGateway(config: string, home: string, fast: boolean): StdioGateway {
  const env = cliEnv(home, fast ? {} : { MCP_BRIDGE_GATEWAY_FAST_PATH: "0" });
  const child = spawn(process.execPath, [CLI, "serve", "--stdio", "-c", config], {
    cwd: home,
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  children.push(child);
  const messages: Record<string, unknown>[] = [];
  let partial = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) messages.push(JSON.parse(line));
  });
  child.stdin?.on("error", () => {});
  return { child, messages, send: (line) => child.stdin?.write(`${line}\n`) };
}

const SENTINEL = "\u0000sentinel";
const answered = (gateway: StdioGateway, id: unknown) =>
  gateway.messages.some((m) => m.id === id && ("result" in m || "error" in m));

async function initialize(gateway: StdioGateway): Promise<void> {
  gateway.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: SENTINEL,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "prop", version: "1" } },
    }),
  );
  await until(() => answered(gateway, SENTINEL), 30_000);
  gateway.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  // The upstream servers are up once the gateway lists their tools.
  let round = 0;
  await until(() => {
    const id = `${SENTINEL}-list-${round}`;
    const listed = gateway.messages.find((m) => m.id === id) as
      | { result?: { tools?: unknown[] } }
      | undefined;
    if (listed?.result?.tools && listed.result.tools.length >= 8) return true;
    if (listed || round === 0) {
      round++;
      gateway.send(JSON.stringify({ jsonrpc: "2.0", id: `${SENTINEL}-list-${round}`, method: "tools/list" }));
    }
    return false;
  }, 30_000);
  gateway.messages.length = 0;
}

describe("the stdio fast path answers as the SDK path does", () => {
  const gateways: StdioGateway[] = [];

  beforeAll(async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          normal: stdioEntry("normal"),
          content: stdioEntry("content-types"),
          off: { ...stdioEntry("normal"), disabled: true },
        },
      }),
    );
    gateways.push(startGateway(config, home, true), startGateway(config, home, false));
    await Promise.all(gateways.map(initialize));
  }, 60_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  });

  const mostly = <T, U>(taken: fc.Arbitrary<T>, left: fc.Arbitrary<U>) =>
    fc.oneof({ arbitrary: taken, weight: 9 }, { arbitrary: left, weight: 1 });
  const line = fc.record({
    id: mostly(
      fc.oneof(fc.integer({ min: -1000, max: 100_000 }), fc.string({ maxLength: 12 })),
      fc.constantFrom(null, 1.5, undefined),
    ),
    name: mostly(
      fc.constantFrom(
        "normal_echo",
        "normal_add",
        "normal_greet",
        "normal_divide",
        "content_text",
        "content_image",
        "content_resource_blob",
        "off_echo",
        "nope",
        "",
      ),
      fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(42, null, undefined)),
    ),
    args: fc.oneof(
      fc.record({ text: fc.string({ maxLength: 30 }) }),
      fc.record({ a: fc.integer(), b: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })) }),
      fc.record({ name: fc.string({ maxLength: 10 }), polite: fc.boolean() }),
      fc.constantFrom(undefined, null, [1, 2], {}, { extra: true }),
    ),
    meta: mostly(
      fc.constantFrom(undefined, {}, { trace: "x" }),
      fc.constantFrom({ progressToken: "p1" }, "not an object", { "io.modelcontextprotocol/x": 1 }),
    ),
    extraKey: mostly(fc.constant(false), fc.constant(true)),
    batch: mostly(fc.constant(false), fc.constant(true)),
  });

  it("for generated tools/call lines (100 runs)", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(line, async (r) => {
        const message: Record<string, unknown> = { jsonrpc: "2.0", method: "tools/call" };
        if (r.id !== undefined) message.id = r.id;
        const params: Record<string, unknown> = {};
        if (r.name !== undefined) params.name = r.name;
        if (r.args !== undefined) params.arguments = r.args;
        if (r.meta !== undefined) params._meta = r.meta;
        message.params = params;
        if (r.extraKey) message.extra = 1;
        const text = JSON.stringify(r.batch ? [message] : message);
        const sentinel = `${SENTINEL}-${round++}`;
        for (const gateway of gateways) {
          gateway.messages.length = 0;
          gateway.send(text);
          gateway.send(JSON.stringify({ jsonrpc: "2.0", id: sentinel, method: "ping" }));
        }
        // A valid JSON-RPC request is answered (it may come after the ping); anything else never is.
        const metaValid = r.meta === undefined || typeof r.meta === "object";
        const request =
          !r.batch && !r.extraKey && metaValid && (typeof r.id === "string" || Number.isInteger(r.id));
        for (const gateway of gateways) {
          await until(() => answered(gateway, sentinel) && (!request || answered(gateway, r.id)), 20_000);
        }
        const [fast, sdk] = gateways.map((g) => g.messages.filter((m) => m.id !== sentinel && "id" in m));
        expect(fast).toEqual(sdk);
      }),
      { numRuns: 100 },
    );
  }, 300_000);
});
