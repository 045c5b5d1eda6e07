/**
 * Fixture servers run inside the test's own process, reached through the SDK's in-memory transport: a
 * server kind of the library's own (`connect`), so a test whose subject is not a process (policy,
 * pins, results, features, the registry, the bridge) starts none. The server is the fixture's own,
 * built by the same function as when it runs as a process (`createFixtureServer` in lib.ts).
 */
import { InMemoryTransport } from "@modelcontextprotocol/client";
import type { McpServer } from "@modelcontextprotocol/server";
import type { ConnectServer } from "../../src/index.js";
import type { FixtureName } from "../fixtures/servers/index.js";
import { buildCaptured, type CapturedFixture, captureFixtures } from "../fixtures/servers/lib.js";

export interface InProcessServer extends AsyncDisposable {
  /** A server entry's `connect`: each call builds a new server and links it to a new transport. */
  readonly connect: ConnectServer;
  /** A server entry (mcpServers shape) that reaches this fixture in process, with `extra` fields. */
  entry(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Sessions opened so far (each connect or reconnect opens one). */
  readonly opened: number;
  /** The live server (the last one built), if any. */
  readonly live: McpServer | undefined;
  /** Ends the live sessions from the server's side, as a crash would: the bridge sees the transport close. */
  crash(): Promise<void>;
  close(): Promise<void>;
}

/** Imports a fixture's module with serving turned off, and returns its server's builder. */
async function capturedFixture(name: FixtureName): Promise<CapturedFixture> {
  const captured = captureFixtures();
  if (!captured.has(name)) await import(`../fixtures/servers/${name}.ts`);
  const fixture = captured.get(name);
  if (!fixture) throw new Error(`Fixture ${name} does not build its server with serveFromArgv`);
  return fixture;
}

/** The fixture `name` served in this process; `args` are its flags (as on its command line). */
export async function inProcessServer(
  name: FixtureName,
  args: readonly string[] = [],
): Promise<InProcessServer> {
  const fixture = await capturedFixture(name);
  const live = new Set<McpServer>();
  let last: McpServer | undefined;
  let opened = 0;
  const connect: ConnectServer = async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const mcp = buildCaptured(fixture, args);
    live.add(mcp);
    last = mcp;
    opened++;
    server.onclose = () => live.delete(mcp);
    await mcp.connect(server);
    // connect() set its own onclose; chain ours after it.
    const own = server.onclose;
    server.onclose = () => {
      own?.();
      live.delete(mcp);
    };
    return client;
  };
  const crash = async () => {
    await Promise.all([...live].map((server) => server.close()));
  };
  return {
    connect,
    entry: (extra = {}) => ({ ...extra, connect }),
    get opened() {
      return opened;
    },
    get live() {
      return last !== undefined && live.has(last) ? last : undefined;
    },
    crash,
    close: crash,
    [Symbol.asyncDispose]: crash,
  };
}
