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
import { buildCaptured, type CapturedFixture, captureFixture } from "../fixtures/servers/lib.js";

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

const loaded = new Map<string, Promise<CapturedFixture>>();
/** Imports run one after the other: a fixture reads its flags while its module is evaluated. */
let importing: Promise<unknown> = Promise.resolve();

/** A fixture's server builder; each set of `args` gets its own module instance (its flags are read at the top). */
function fixtureBuilder(name: FixtureName, args: readonly string[]): Promise<CapturedFixture> {
  const key = [name, ...args].join("\u0000");
  let fixture = loaded.get(key);
  if (!fixture) {
    const query = encodeURIComponent(args.join(" "));
    fixture = importing.then(async () => {
      const url = new URL(`../fixtures/servers/${name}.ts?args=${query}`, import.meta.url).href;
      const found = await captureFixture(() => import(/* @vite-ignore */ url), args);
      if (!found) throw new Error(`Fixture ${name} does not build its server with serveFromArgv`);
      return found;
    });
    importing = fixture.catch(() => {});
    loaded.set(key, fixture);
  }
  return fixture;
}

/** The fixture `name` served in this process; `args` are its flags (as on its command line). */
export async function inProcessServer(
  name: FixtureName,
  args: readonly string[] = [],
): Promise<InProcessServer> {
  await fixtureBuilder(name, args);
  return servedInProcess(name, args);
}

/**
 * A server entry reaching the fixture `name` in this process, in place of `stdioEntry(name, extra,
 * args)`: the fixture loads on the first connect; closing the bridge closes its server.
 */
export function inProcessEntry(
  name: FixtureName,
  extra: Record<string, unknown> = {},
  args: readonly string[] = [],
): Record<string, unknown> {
  return servedInProcess(name, args).entry(extra);
}

function servedInProcess(name: FixtureName, args: readonly string[]): InProcessServer {
  const live = new Set<McpServer>();
  let last: McpServer | undefined;
  let opened = 0;
  const connect: ConnectServer = async () => {
    const mcp = buildCaptured(await fixtureBuilder(name, args));
    const [client, server] = InMemoryTransport.createLinkedPair();
    live.add(mcp);
    last = mcp;
    opened++;
    await mcp.connect(server);
    // connect() set its own onclose; ours runs after it.
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
