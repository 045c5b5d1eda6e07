import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diffServers } from "../../src/config/diff.js";
import { type Bridge, ErrorCode, inMemoryServer, loadConfig, startBridge } from "../../src/index.js";
import { type InProcessServer, inProcessServer } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";

/**
 * A server given in code (`connect`): a server kind of its own, with the lifecycle of any other
 * (states, reconnects, restarts, reloads) and refused in a config file.
 */
const open: (Bridge | InProcessServer)[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await ("call" in item ? item.close() : item.close());
});

async function served(extra: Record<string, unknown> = {}) {
  const fixture = await inProcessServer("normal");
  open.push(fixture);
  const bridge = await startBridge({
    servers: { mem: fixture.entry(extra) },
    catalogCache: false,
    pins: false,
  });
  open.push(bridge);
  return { fixture, bridge };
}

describe("a server given in code (connect)", () => {
  it("connects, lists and calls like any server, and says it is in-process", async () => {
    const { bridge } = await served();
    expect(bridge.server("mem")).toMatchObject({ state: "connected", transport: "in-process" });
    expect((await bridge.call("mem/add", { a: 2, b: 3 })).text).toBe("5");
  });

  it("reconnects through a new transport after the server side closes", async () => {
    const { fixture, bridge } = await served({ restart: { initialDelay: "10ms" } });
    expect(fixture.opened).toBe(1);
    await fixture.crash();
    await until(() => fixture.opened === 2 && bridge.server("mem")?.state === "connected");
    expect((await bridge.call("mem/echo", { text: "again" })).text).toBe("again");
  });

  it("restart() opens a new session", async () => {
    const { fixture, bridge } = await served();
    await bridge.restart("mem");
    expect(fixture.opened).toBe(2);
    expect(bridge.server("mem")?.state).toBe("connected");
  });

  it("a connect that fails or returns no transport fails the start with the server's name", async () => {
    const bridge = await startBridge({
      servers: {
        broken: {
          connect: () => {
            throw new Error("no server here");
          },
        },
        wrong: { connect: () => ({ not: "a transport" }) as never },
      },
      catalogCache: false,
      pins: false,
    });
    open.push(bridge);
    expect(bridge.server("broken")).toMatchObject({ state: "failed" });
    expect(bridge.server("broken")?.lastError?.message).toContain("no server here");
    expect(bridge.server("wrong")?.lastError).toMatchObject({ code: ErrorCode.ServerStartFailed });
    expect(bridge.server("wrong")?.lastError?.message).toContain(
      'Server "wrong": its `connect` function returned object',
    );
  });

  it("inMemoryServer builds a new SDK server per connect", async () => {
    const { McpServer } = await import("@modelcontextprotocol/server");
    let built = 0;
    const bridge = await startBridge({
      servers: {
        notes: {
          connect: inMemoryServer(() => {
            built++;
            const server = new McpServer({ name: "notes", version: "1.0.0" });
            server.registerTool("count", { description: "How many servers were built" }, async () => ({
              content: [{ type: "text", text: String(built) }],
            }));
            return server;
          }),
        },
      },
      catalogCache: false,
      pins: false,
    });
    open.push(bridge);
    expect((await bridge.call("notes/count", {})).text).toBe("1");
    await bridge.restart("notes");
    expect((await bridge.call("notes/count", {})).text).toBe("2");
  });

  it("is refused in a config file, with the reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "in-process-"));
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { file: { connect: "node server.js" } } }));
    const config = await loadConfig({ path: file }).finally(() => rmSync(dir, { recursive: true }));
    expect(config.servers).toEqual([]);
    expect(config.skipped[0]?.reason).toContain("only a program using the library can give one");
  });

  it("a reload sees another connect function as a changed server, the same one as unchanged", async () => {
    const first = () => ({}) as never;
    const load = (connect: unknown) => loadConfig({ servers: { mem: { connect } } });
    const before = (await load(first)).servers;
    expect(diffServers(before, (await load(first)).servers).unchanged).toHaveLength(1);
    expect(diffServers(before, (await load(() => ({}) as never)).servers).changed).toHaveLength(1);
  });

  it("cannot go with command or url", async () => {
    const config = await loadConfig({ servers: { both: { connect: () => ({}) as never, command: "node" } } });
    expect(config.skipped[0]?.reason).toContain('"command" cannot go with "connect"');
  });
});
