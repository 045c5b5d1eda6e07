/**
 * The transports the contract suite runs over: each serves the `transport-contract` fixture its own way
 * and says which protocol revision a bridge should negotiate with it. A case a transport fails for a
 * known reason is listed in its `defects` (run as `it.fails`, so the day it passes the suite says so).
 */
import type { RawServers } from "../../../src/index.js";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../../fixtures/servers/index.js";

/** The server a transport serves for one bridge, as the `contract` entry of its `servers`. */
export interface ServedFixtures extends AsyncDisposable {
  readonly servers: RawServers;
}

export interface ContractTransport {
  readonly name: string;
  /** The revision `bridge.server(...).protocolVersion` reports once connected. */
  readonly protocolVersion: string;
  /** Case title → the defect that makes it fail on this transport. */
  readonly defects?: Readonly<Record<string, string>>;
  serve(): Promise<ServedFixtures>;
}

/** What every server entry of the suite carries besides how it is reached. */
const common = { logLevel: "debug", sampling: { maxTokens: 64 } };

/** One fixture process per transport: under load, starting one costs seconds. */
async function served(fixture: Promise<HttpFixture>, entry: (url: string) => Record<string, unknown>) {
  const started = await fixture;
  return {
    servers: { contract: { ...entry(started.url), ...common } },
    [Symbol.asyncDispose]: () => started.close(),
  };
}

export const stdio: ContractTransport = {
  name: "stdio",
  protocolVersion: "2025-11-25",
  serve: async () => ({
    servers: {
      contract: stdioEntry("transport-contract", common),
    },
    [Symbol.asyncDispose]: async () => {},
  }),
};

export const streamableHttpSessions: ContractTransport = {
  name: "Streamable HTTP 2025-11-25 (sessions)",
  protocolVersion: "2025-11-25",
  serve: () =>
    served(startHttpFixture("transport-contract"), (url) => ({ type: "http", url, negotiation: "legacy" })),
};

export const streamableHttpStateless: ContractTransport = {
  name: "Streamable HTTP 2026-07-28 (stateless)",
  protocolVersion: "2026-07-28",
  defects: {
    // src/bridge/logging.ts applyLogLevel sends logging/setLevel once; a 2026-07-28 server keeps no state
    // between requests and logs only when a request's _meta carries `io.modelcontextprotocol/logLevel`,
    // which the bridge never sends: a configured logLevel yields no notifications/message at all.
    "passes the server's log messages (notifications/message) to serverLog":
      "logLevel is not sent in each request's _meta, so the server logs nothing",
  },
  serve: () =>
    served(startHttpFixture("transport-contract", ["--modern"]), (url) => ({
      type: "http",
      url,
      negotiation: "2026-07-28",
    })),
};

export const legacySse: ContractTransport = {
  name: "HTTP+SSE (legacy)",
  protocolVersion: "2025-11-25",
  defects: {
    // When the server process dies, the SSE stream drops (the SDK's EventSource retries it) but the
    // transport never closes, so the connection does not learn that the call's answer will never come.
    "fails a call whose server crashes mid-call with SERVER_CRASHED":
      "a dropped SSE stream does not fail the call in flight; it ends as TOOL_TIMEOUT",
  },
  serve: () =>
    served(startHttpFixture("transport-contract", ["--sse", "--v2-server"]), (url) => ({ type: "sse", url })),
};
