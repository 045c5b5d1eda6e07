import { isRemote } from "../config/model.js";
import { ErrorCode, McpBridgeError } from "../errors/index.js";
import { SERVER_START_FAILED } from "../util/logger.js";
import { confirmUnreachable } from "./confirm-unreachable.js";
import * as fail from "./failures.js";
import { armIdleTimer, failureContext, type LiveConnection, setState, setTools } from "./live-connection.js";
import { retireSession, type Session } from "./session.js";
import { openSession, startError } from "./session-opener.js";

/**
 * Connecting one server and getting it back: the connect attempt, what follows the loss of a
 * session (crash, network failure, failed ping), reconnecting with backoff, retrying an
 * unreachable remote server in the background, and abandoning a session no longer trusted.
 * Functions over the connection's live state; none calls back into the connection.
 */

/**
 * `reconnect` follows a crash (state `reconnecting`); `retry` is a background retry of a remote
 * server that could not be reached (the state stays `failed` until it connects).
 */
export function connect(
  live: LiveConnection,
  reason: "start" | "reconnect" | "retry" | "demand",
  deferSpawn = false,
): Promise<void> {
  if (live.connecting) return live.connecting;
  if (reason === "start" || reason === "demand") setState(live, "connecting");
  // Deferred: the process is spawned (a synchronous fork, milliseconds each) once the current
  // macrotask has ended, so a host given its tools from the catalog cache gets them first.
  const opened = deferSpawn
    ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        if (live.stop.signal.aborted) throw fail.closedWhileStarting(live.name);
        return open(live);
      })
    : open(live);
  const attempt = opened.then(
    (session) => {
      live.connecting = undefined;
      if (live.closing) {
        void retireSession(session);
        return;
      }
      if (reason === "reconnect" || reason === "retry") live.restartCount++;
      live.session = session;
      live.restarts.connected(() => session === live.session);
      live.lastError = undefined;
      setState(live, "connected");
      // The bridge logs the connect (info, with the tool count): see bridge/servers/startup-report.ts.
      live.health.start(
        live.definition.healthCheckIntervalMs,
        (timeout) => (session === live.session ? session.client.ping({ timeout }) : Promise.resolve()),
        (error) => abandon(live, session, fail.healthCheckFailed(failureContext(live), error)),
      );
      armIdleTimer(live);
    },
    (error: unknown) => {
      live.connecting = undefined;
      const failure =
        error instanceof McpBridgeError
          ? error
          : startError(live.opener, error, undefined, live.definition.startupTimeoutMs);
      live.lastError = failure;
      // A failed background retry leaves the state as it was: wake the calls that waited for it.
      live.waiters.wakeAll();
      if (live.closing) throw failure;
      if (reason === "reconnect") scheduleReconnect(live);
      else {
        setState(live, "failed");
        retryInBackground(live, failure);
      }
      // A warning: a server that does not start is something the host's user has to fix.
      live.options.logger.warn(`Server "${live.name}" could not be connected`, {
        server: live.name,
        code: failure.code,
        error: live.options.redact(failure.message),
        event: SERVER_START_FAILED,
      });
      throw failure;
    },
  );
  live.connecting = attempt;
  return attempt;
}

async function open(live: LiveConnection): Promise<Session> {
  const opened = await openSession(live.opener, live.legacyOnly ? "legacy" : live.definition.negotiation);
  const { session } = opened;
  session.client.onclose = () => sessionClosed(live, session);
  session.client.onerror = (error) => sessionError(live, session, error);
  live.info = {
    pid: session.created.process?.pid,
    protocolVersion: opened.protocolVersion,
    serverInfo: opened.serverInfo,
    connectMs: opened.connectMs,
  };
  setTools(live, opened.listing);
  return session;
}

function sessionClosed(live: LiveConnection, session: Session): void {
  session.dead = true;
  if (session.retired || session !== live.session) return;
  live.session = undefined;
  live.health.stop();
  if (live.closing) return;
  live.lastError = fail.unexpectedStop(failureContext(live), session.created.process?.exitInfo);
  live.options.logger.warn(`Server "${live.name}" connection closed unexpectedly`, { server: live.name });
  afterRuntimeFailure(live);
}

/**
 * Transport errors outside any request. Over HTTP a dead server shows up only here (the SDK keeps
 * retrying the stream while requests wait for their timeout), so a network failure ends the session
 * once a bounded ping confirms it (confirm-unreachable.ts: one broken socket of a live server costs
 * nothing): in-flight calls fail then, and the reconnect path takes over.
 */
function sessionError(live: LiveConnection, session: Session, error: Error): void {
  if (session.retired || session !== live.session) return;
  live.options.logger.debug(
    `Server "${live.name}" transport error: ${fail.describeError(error, live.options.redact)}`,
    { server: live.name },
  );
  if (!isRemote(live.definition.transport)) return;
  if (fail.isNetworkFailure(error) || /Maximum reconnection attempts/.test(error.message)) {
    confirmUnreachable(session, () => {
      if (session.retired || session !== live.session) return;
      abandon(live, session, fail.becameUnreachable(failureContext(live), error));
    });
  }
}

function afterRuntimeFailure(live: LiveConnection): void {
  if (live.definition.restart.enabled) scheduleReconnect(live);
  else setState(live, "failed");
}

function scheduleReconnect(live: LiveConnection): void {
  const scheduled = live.restarts.schedule(() => {
    if (!live.closing) connect(live, "reconnect").catch(() => {});
  });
  setState(live, scheduled ? "reconnecting" : "failed");
  if (!scheduled) retryInBackground(live, live.lastError);
}

/**
 * A remote server that could not be reached (down at start, or down longer than the restart
 * attempts last) is retried in the background until close, at most `restart.retryCeilingMs`
 * apart. Not a stdio or in-process server (its crash loop ends `failed`), not a server without restarts, and not
 * an authorization failure (a retry cannot log in; it would only repeat the failure).
 */
function retryInBackground(live: LiveConnection, failure: McpBridgeError | undefined): void {
  if (!isRemote(live.definition.transport) || !live.definition.restart.enabled) return;
  if (live.closing || failure?.code === ErrorCode.Auth) return;
  live.restarts.scheduleBackground(() => {
    if (!live.closing && live.state === "failed" && !live.connecting) {
      connect(live, "retry").catch(() => {});
    }
  });
}

/** A session that is alive but no longer trustworthy (failed ping, fatal HTTP error): replace it. */
export function abandon(
  live: LiveConnection,
  session: Session,
  reason: McpBridgeError,
  options: { immediate?: boolean } = {},
): void {
  if (session !== live.session || live.closing) return;
  live.session = undefined;
  live.health.stop();
  live.lastError = reason;
  void retireSession(session);
  if (options.immediate) {
    setState(live, "reconnecting");
    connect(live, "reconnect").catch(() => {});
  } else afterRuntimeFailure(live);
}
