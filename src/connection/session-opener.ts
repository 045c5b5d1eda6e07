import { type Client, SdkError, SdkErrorCode, UnauthorizedError } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import { STARTUP_TIMEOUT_TEXT } from "../errors/connection-errors.js";
import type { McpBridgeError } from "../errors/index.js";
import type { Telemetry } from "../telemetry/create-telemetry.js";
import { peerAttributes } from "../telemetry/semconv.js";
import { traceTransport } from "../telemetry/traced-transport.js";
import type { CreatedTransport, TransportContext, TransportFactory } from "../transport/create.js";
import type { ExitInfo } from "../transport/process-transport.js";
import { looksLikeLegacySseServer, transportAttempts } from "../transport/transport-kinds.js";
import * as fail from "./failures.js";
import type { ConnectionOptions } from "./server-connection.js";
import type { ServerOutput } from "./server-output.js";
import { serverInfoOf } from "./server-status.js";
import {
  boundedBy,
  listTools,
  MAX_LIST_PAGES,
  newSessionClient,
  type OpenedSession,
  type Session,
  type ToolListing,
} from "./session.js";

/**
 * Opening a session for one connection, as plain functions: the connection hands over what it was
 * created with (plain data, fixed for its life) and gets back a session and its first tool listing.
 * Nothing here reaches back into the connection; the one event, a tools/list_changed on a session's
 * client, flows out through `onToolsChanged` and the connection decides what to do with it.
 */
export interface OpenerInput {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly options: ConnectionOptions;
  /** The server's stderr and noise, kept for start errors. */
  readonly output: ServerOutput;
  /** Aborted by the connection's close(): ends any start or listing still waiting. */
  readonly stop: AbortSignal;
  /** A session's client announced new tools (the connection lists them again if it is still live). */
  readonly onToolsChanged: (client: Client) => void;
}

/**
 * The transport implementations (process supervision, the sandbox, HTTP and SSE clients), loaded when
 * the first server connects rather than with the library: `import "mcp-bridge"` does not pay for them.
 */
async function transportFactory(definition: ServerDefinition): Promise<TransportFactory> {
  return (await import("../transport/create.js")).transportFor(definition);
}

/**
 * One connect attempt: transport, handshake and version negotiation, the first tools listing, the
 * fallback from Streamable HTTP to legacy SSE, and one retry after an OAuth authorization. The
 * startup deadline bounds the whole attempt (spawn, handshake, the SSE endpoint wait, every listing
 * page), not each request on its own. `negotiation`: the definition's, unless the server proved it
 * needs `legacy`.
 */
export async function openSession(
  input: OpenerInput,
  negotiation: ServerDefinition["negotiation"],
): Promise<OpenedSession> {
  const { name, definition, options } = input;
  const started = performance.now();
  const timeoutMs = definition.startupTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  const attempts = transportAttempts(definition);
  const factory = traced(
    options.createTransport ?? (await transportFactory(definition)),
    options.telemetry,
    options.redact,
  );
  const context = transportContext(input);
  let lastError: unknown;
  let authorizations = 0;
  for (let index = 0; index < attempts.length; index++) {
    const attempt = attempts[index] as (typeof attempts)[number];
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    let created: CreatedTransport;
    const making = Promise.resolve(factory(definition, attempt, context));
    try {
      created = await bounded(input, deadline, () => making);
    } catch (error) {
      // A transport that arrives after the deadline or close() would stay open with nobody using it.
      making.then((late) => late.transport.close()).catch(() => {});
      throw startError(input, error, undefined, timeoutMs);
    }
    const client = newClient(input, negotiation);
    const session: Session = { client, created, retired: false, dead: false };
    try {
      const listing = await bounded(input, deadline, async () => {
        await client.connect(created.transport, { timeout: remaining });
        return listTools(client, { name, logger: options.logger }, Math.max(1, deadline - Date.now()));
      });
      return {
        session,
        listing,
        protocolVersion: client.getNegotiatedProtocolVersion(),
        serverInfo: serverInfoOf(client.getServerVersion()),
        connectMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (
        UnauthorizedError.isInstance(error) &&
        authorizations < 2 &&
        (await finishAuthorization(input, created))
      ) {
        authorizations++;
        session.retired = true;
        await client.close().catch(() => {});
        // The same transport kind again, now with a token.
        index--;
        continue;
      }
      lastError = startError(input, error, created.process?.exitInfo, timeoutMs);
      session.retired = true;
      await client.close().catch(() => {});
      await created.transport.close().catch(() => {});
      const next = attempts[index + 1];
      if (next === "sse" && looksLikeLegacySseServer(error)) {
        options.logger.debug(`Server "${name}" is not Streamable HTTP; trying legacy SSE`, { server: name });
        continue;
      }
      throw lastError;
    }
  }
  throw (
    lastError ??
    startError(input, new SdkError(SdkErrorCode.RequestTimeout, STARTUP_TIMEOUT_TEXT), undefined, timeoutMs)
  );
}

/**
 * Lists the tools of a session again (on list_changed, or `refreshTools`), bounded like the first
 * listing; the connection puts the list in place if the client is still its live session's.
 */
export function relistTools(input: OpenerInput, client: Client): Promise<ToolListing> {
  const timeoutMs = input.definition.startupTimeoutMs;
  return bounded(input, Date.now() + timeoutMs, () =>
    listTools(client, { name: input.name, logger: input.options.logger }, timeoutMs),
  );
}

/** The start error of an attempt, with the server's stderr as it is now. */
export function startError(
  input: Pick<OpenerInput, "definition" | "options" | "output">,
  error: unknown,
  exit: ExitInfo | undefined,
  timeoutMs: number,
): McpBridgeError {
  const context = fail.failureContext(input.definition, input.options.redact, input.output.stderr());
  return fail.startFailure(error, context, { exit, timeoutMs, maxListPages: MAX_LIST_PAGES });
}

/** The SDK client of one attempt, with the bridge's client-side features registered (`clientSetup`). */
function newClient(input: OpenerInput, negotiation: ServerDefinition["negotiation"]): Client {
  const { name, options } = input;
  const client = newSessionClient({
    clientInfo: options.clientInfo,
    negotiation,
    onToolsChanged: () => input.onToolsChanged(client),
  });
  client.onListenFailed = (error) =>
    options.logger.warn(
      `Server "${name}" did not open a list-changes stream; changes to its tools, prompts and resources will not be noticed until it reconnects`,
      { server: name, error: fail.describeError(error, options.redact) },
    );
  options.clientSetup?.(client);
  return client;
}

/**
 * Completes an OAuth authorization the SDK started during connect; true when there is a new token. A
 * failed authorization step (the user gave up, the callback carried an error) is logged; the attempt
 * then fails as needing authorization.
 */
async function finishAuthorization(input: OpenerInput, created: CreatedTransport): Promise<boolean> {
  const { name, options } = input;
  const params = await options.auth?.authorizationResult().catch((error: unknown) => {
    const failure = fail.authorizationFailed(name, error, options.redact);
    options.logger.debug(failure.message, { server: name, code: failure.code });
    return undefined;
  });
  if (!params || !created.finishAuth) return false;
  await created.finishAuth(params);
  return true;
}

function bounded<T>(input: OpenerInput, deadline: number, work: () => Promise<T>): Promise<T> {
  return boundedBy(deadline, input.stop, () => fail.closedWhileStarting(input.name), work);
}

/** The factory, with each transport it makes traced when telemetry is on (the factory itself when off). */
function traced(
  factory: TransportFactory,
  telemetry: Telemetry | undefined,
  redact: (text: string) => string,
): TransportFactory {
  if (telemetry === undefined) return factory;
  const wrap = (definition: ServerDefinition, created: CreatedTransport): CreatedTransport => ({
    ...created,
    transport: traceTransport(created.transport, telemetry, peerAttributes(definition), redact),
  });
  return (definition, attempt, context) => {
    const created = factory(definition, attempt, context);
    return created instanceof Promise
      ? created.then((made) => wrap(definition, made))
      : wrap(definition, created);
  };
}

function transportContext({ name, options, output }: OpenerInput): TransportContext {
  return {
    // Names only, at debug level: which of the host's secrets the server does not get.
    onEnvironmentWithheld: (names) =>
      options.logger.debug(
        `Server "${name}" does not get these host variables (their names look secret): ${names.join(", ")}`,
        { server: name, withheld: names },
      ),
    onLimitNotEnforced: () =>
      options.logger.warn(
        `Server "${name}": "limits.pids" is not enforced, since the kernel never applies a process limit to root; run mcp-bridge as another user to enforce it`,
        { server: name, limit: "pids" },
      ),
    hostEnv: options.hostEnv,
    authProvider: options.auth?.provider,
    fetch: options.fetch,
    stringCapBytes: options.stringCapBytes,
    onStderrLine: output.onStderrLine,
    onNoise: output.onNoise,
  };
}
