/**
 * Fixture servers run inside the test's own process, reached through the SDK's in-memory transport: a
 * server kind of the library's own (`connect`), so a test whose subject is not a process (policy,
 * pins, results, features, the registry, the bridge) starts none. The server is the fixture's own,
 * built by the same function as when it runs as a process (`createFixtureServer` in lib.ts).
 */
import { InMemoryTransport } from "@modelcontextprotocol/client";
import type { ConnectServer } from "../../src/index.js";
import type { FixtureName } from "../fixtures/servers/index.js";
import {
  buildCaptured,
  type CapturedFixture,
  captureFixture,
  type FixtureServer,
} from "../fixtures/servers/lib.js";

export interface InProcessServer extends AsyncDisposable {
  /** A server entry's `connect`: each call builds a new server and links it to a new transport. */
  readonly connect: ConnectServer;
  /** A server entry (mcpServers shape) that reaches this fixture in process, with `extra` fields. */
  entry(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Sessions opened so far (each connect or reconnect opens one). */
  readonly opened: number;
  /** The live server (the last one built), if any. */
  readonly live: FixtureServer | undefined;
  /** Ends the live sessions from the server's side, as a crash would: the bridge sees the transport close. */
  crash(): Promise<void>;
  close(): Promise<void>;
}

/** Imports run one after the other: a fixture reads its flags while its module is evaluated. */
let importing: Promise<unknown> = Promise.resolve();
let instances = 0;

/**
 * A fixture's server builder from a new instance of its module, as a new process of it would have:
 * fixtures read their flags and keep their state (calls recorded, files read) at the module's top.
 */
function fixtureBuilder(name: FixtureName, args: readonly string[]): Promise<CapturedFixture> {
  const query = `args=${encodeURIComponent(args.join(" "))}&instance=${++instances}`;
  const url = new URL(`../fixtures/servers/${name}.ts?${query}`, import.meta.url).href;
  const fixture = importing.then(async () => {
    const found = await captureFixture(() => import(/* @vite-ignore */ url), args);
    if (!found) throw new Error(`Fixture ${name} does not build its server with serveFromArgv`);
    return found;
  });
  importing = fixture.catch(() => {});
  return fixture;
}

/** The fixture `name` served in this process; `args` are its flags (as on its command line). */
export async function inProcessServer(
  name: FixtureName,
  args: readonly string[] = [],
): Promise<InProcessServer> {
  // Loaded once here, so that a fixture that cannot run in process fails the test at once.
  await fixtureBuilder(name, args);
  return servedInProcess(name, args);
}

/**
 * A server entry reaching the fixture `name` in this process, in place of `stdioEntry(name, extra,
 * args)`: each connect loads a new instance of the fixture, as each start of its process would; closing
 * the bridge closes its server.
 */
export function inProcessEntry(
  name: FixtureName,
  extra: Record<string, unknown> = {},
  args: readonly string[] = [],
): Record<string, unknown> {
  return servedInProcess(name, args).entry(extra);
}

function servedInProcess(name: FixtureName, args: readonly string[]): InProcessServer {
  const live = new Set<FixtureServer>();
  let last: FixtureServer | undefined;
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
