/**
 * The transports the contract suite runs over: each serves the `transport-contract` fixture its own way
 * and says which protocol revision a bridge should negotiate with it. A case a transport fails for a
 * known reason is listed in its `defects` (run as `it.fails`, so the day it passes the suite says so).
 */
import type { RawServers } from "../../../src/bridge/api.js";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../../fixtures/servers/index.js";
import { inProcessServer } from "../../helpers/in-process.js";

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
  serve: () =>
    served(startHttpFixture("transport-contract", ["--sse", "--v2-server"]), (url) => ({ type: "sse", url })),
};

/** The fixture's server in the test's own process, over the SDK's in-memory pair (`connect`). */
export const inProcess: ContractTransport = {
  name: "in-process (connect)",
  protocolVersion: "2025-11-25",
  serve: async () => {
    const server = await inProcessServer("transport-contract");
    return { servers: { contract: server.entry(common) }, [Symbol.asyncDispose]: () => server.close() };
  },
};
