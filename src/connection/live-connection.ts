import type { Client } from "@modelcontextprotocol/client";
import type { ServerDefinition } from "../config/model.js";
import type { McpBridgeError } from "../errors/index.js";
import { definedOnly } from "../util/defined.js";
import { TypedEmitter } from "../util/events.js";
import { Semaphore } from "../util/semaphore.js";
import { errorText } from "../util/text-of.js";
import { canTransition, StateWaiters } from "./connection-state.js";
import * as fail from "./failures.js";
import { HealthCheck, IdleTimer } from "./health-check.js";
import { Restarts } from "./reconnect-backoff.js";
import type { ConnectionEvents, ConnectionOptions } from "./server-connection.js";
import { ServerOutput } from "./server-output.js";
import { isSandboxed, type ServerState, type ServerStatus } from "./server-status.js";
import { retireSession, type Session, type ToolListing } from "./session.js";
import { type OpenerInput, relistTools } from "./session-opener.js";
import { ToolIndex } from "./tool-call.js";

/**
 * The live state of one server connection, as plain data: the connection's methods and the
 * reconnect functions (reconnect.ts) read and change it by property, none calls back into another.
 */
export interface LiveConnection {
  readonly name: string;
  readonly definition: ServerDefinition;
  readonly options: ConnectionOptions;
  readonly events: TypedEmitter<ConnectionEvents>;
  readonly output: ServerOutput;
  readonly semaphore: Semaphore | undefined;
  readonly waiters: StateWaiters;
  readonly toolIndex: ToolIndex;
  readonly health: HealthCheck;
  readonly idle: IdleTimer;
  readonly restarts: Restarts;
  /** What each session is opened with (plain data, fixed for the connection's life). */
  readonly opener: OpenerInput;
  /** Aborted by close(): ends a start or a listing that is still waiting, whatever it waits for. */
  readonly stop: AbortController;

  state: ServerState;
  session: Session | undefined;
  connecting: Promise<void> | undefined;
  listing: ToolListing;
  lastError: McpBridgeError | undefined;
  /** What the last successful connect learnt; the pid is shown only while its session lives. */
  info: Partial<Pick<ServerStatus, "protocolVersion" | "serverInfo" | "connectMs" | "pid">>;
  restartCount: number;
  inFlight: number;
  /** The server answered 2026-07-28 requests in the 2025 shape: reconnect with the 2025-11-25 handshake. */
  legacyOnly: boolean;
  closing: Promise<void> | undefined;
}

export function createLiveConnection(
  definition: ServerDefinition,
  options: ConnectionOptions,
): LiveConnection {
  const name = definition.name;
  const output = new ServerOutput(name, options.logger, options.redact);
  const stop = new AbortController();
  const live: LiveConnection = {
    name,
    definition,
    options,
    events: new TypedEmitter((error) =>
      options.logger.error("A connection event listener threw", { server: name, error: errorText(error) }),
    ),
    output,
    semaphore: definition.maxConcurrency ? new Semaphore(definition.maxConcurrency) : undefined,
    waiters: new StateWaiters(),
    toolIndex: new ToolIndex(),
    health: new HealthCheck(),
    idle: new IdleTimer(),
    restarts: new Restarts(definition.restart, options.random),
    opener: {
      name,
      definition,
      options,
      output,
      stop: stop.signal,
      onToolsChanged: (client) => toolsAnnounced(live, client),
    },
    stop,
    state: definition.enabled ? "idle" : "disabled",
    session: undefined,
    connecting: undefined,
    listing: { tools: [] },
    lastError: undefined,
    info: {},
    restartCount: 0,
    inFlight: 0,
    legacyOnly: false,
    closing: undefined,
  };
  return live;
}

export function statusOf(live: LiveConnection): ServerStatus {
  const redact = live.options.redact;
  const lastError = live.lastError;
  // definedOnly: the status is JSON output, where an absent field must not show as undefined.
  return {
    name: live.name,
    transport: live.definition.transport,
    state: live.state,
    toolCount: live.listing.tools.length,
    restarts: live.restartCount,
    stderrTail: live.output.stderr().map(redact),
    sandboxed: isSandboxed(live.definition),
    ...definedOnly({
      ...live.info,
      pid: live.session === undefined ? undefined : live.info.pid,
      lastError: lastError && { code: lastError.code, message: redact(lastError.message) },
    }),
  };
}

export function setState(live: LiveConnection, next: ServerState): void {
  const previous = live.state;
  if (previous === next && next !== "reconnecting") return;
  if (!canTransition(previous, next)) {
    live.options.logger.debug(`Ignored state change ${previous} -> ${next}`, { server: live.name });
    return;
  }
  live.state = next;
  if (next === "failed" || next === "closed") {
    if (live.listing.tools.length > 0) setTools(live, { tools: [] });
  }
  live.waiters.wakeAll();
  live.events.emit("stateChanged", statusOf(live));
}

export function setTools(live: LiveConnection, listing: ToolListing): void {
  live.listing = listing;
  live.toolIndex.invalidate();
  live.events.emit("toolsChanged", listing.tools);
}

/** Lists the tools again and puts the list in place if the client is still the live session's. */
export async function relist(live: LiveConnection, client: Client): Promise<void> {
  const listing = await relistTools(live.opener, client);
  if (client === live.session?.client) setTools(live, listing);
}

/** A list_changed notification: list again; a failure is only a warning (the old list stays). */
function toolsAnnounced(live: LiveConnection, client: Client): void {
  if (client !== live.session?.client) return;
  relist(live, client).catch((error: unknown) =>
    live.options.logger.warn(`Server "${live.name}" announced new tools, but listing them failed`, {
      server: live.name,
      error: fail.describeError(error, live.options.redact),
    }),
  );
}

export function armIdleTimer(live: LiveConnection): void {
  if (live.state !== "connected") return;
  live.idle.arm(live.definition.idleTimeoutMs, live.inFlight > 0, () => {
    const session = live.session;
    if (!session || live.inFlight > 0 || live.closing) return;
    live.session = undefined;
    live.health.stop();
    setState(live, "idle");
    void retireSession(session);
  });
}

export function failureContext(live: LiveConnection): fail.FailureContext {
  return fail.failureContext(live.definition, live.options.redact, live.output.stderr());
}

export function unavailableError(live: LiveConnection, tool: string | undefined): McpBridgeError {
  return fail.unavailableError(
    { server: live.name, redact: live.options.redact },
    live.state,
    live.lastError,
    tool,
  );
}
