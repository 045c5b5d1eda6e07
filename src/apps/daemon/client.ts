import { type IncomingMessage, request } from "node:http";
import { createConnection } from "node:net";
import { daemonAnswered, daemonLost, requestAborted } from "../../errors/daemon-errors.js";
import { definedOnly } from "../../util/defined.js";
import {
  CONFIG_HEADER,
  DAEMON_SILENCE_MS,
  type Envelope,
  PACKAGE_VERSION,
  type ResponseLine,
  VERSION_HEADER,
} from "./protocol.js";

/** A response bigger than this is a misbehaving daemon, not a result (results are capped far below). */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** No daemon answers at the socket (no file, or a stale one nobody listens on): run without it. */
export class NoDaemon extends Error {}

export { CONFIG_HEADER, PACKAGE_VERSION, VERSION_HEADER };

export interface DaemonRequestOptions {
  /** The absolute config path the command is for. */
  readonly config?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Give up when the daemon sends nothing (not even its heartbeat) for this long. */
  readonly silenceMs?: number;
}

/**
 * One operation on the daemon at `socket`. Resolves with the operation's envelope; rejects with
 * `NoDaemon` when nothing listens (before anything was sent), with the daemon's own error (a
 * McpBridgeError with its code), or with DAEMON_UNAVAILABLE when the daemon went away mid-request.
 * Aborting `signal` closes the connection, which cancels the operation in the daemon.
 */
export function daemonRequest(
  socket: string,
  operation: string,
  body: unknown,
  options: DaemonRequestOptions = {},
): Promise<Envelope> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body ?? {});
    let settled = false;
    let answered = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const req = openRequest(socket, operation, payload, options.config);
    const onAbort = () => {
      req.destroy();
      // The caller's own abort reason; the bare Error only stands in for a signal aborted without one.
      finish(() => reject(options.signal?.reason ?? requestAborted()));
    };
    if (options.signal?.aborted) return onAbort();
    // A daemon that accepted the request but went silent (stopped, hung) must not hold the CLI forever:
    // a live one writes a heartbeat line while a request runs.
    const silenceMs = options.silenceMs ?? DAEMON_SILENCE_MS;
    req.setTimeout(silenceMs, () => {
      req.destroy();
      finish(() =>
        reject(daemonLost({ socket, detail: `it sent nothing for ${Math.round(silenceMs / 1000)} s` })),
      );
    });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error: NodeJS.ErrnoException) => {
      const absent = !answered && (error.code === "ECONNREFUSED" || error.code === "ENOENT");
      finish(() =>
        reject(
          absent ? new NoDaemon(error.code) : daemonLost({ socket, detail: error.code ?? error.message }),
        ),
      );
    });
    req.on("response", (res) => {
      answered = true;
      if (res.statusCode === 409) {
        // A daemon of another mcp-bridge version (started before an upgrade) or config: run without it.
        res.resume();
        return finish(() => reject(new NoDaemon("version")));
      }
      readAnswer(res, {
        onProgress: options.onProgress,
        result: (result) => finish(() => resolve(result)),
        error: (error) => finish(() => reject(error)),
        lost: (detail, cut) => {
          if (cut) req.destroy();
          finish(() => reject(daemonLost({ socket, detail })));
        },
      });
    });
    req.end(payload);
  });
}

/** The request of one operation, its body yet to be written. */
function openRequest(socket: string, operation: string, payload: string, config: string | undefined) {
  return request({
    socketPath: socket,
    method: "POST",
    path: `/${operation}`,
    // Our own socket rather than `agent: false`: an agent (even a fresh one) works out a TLS server
    // name for each request, whose `isIP` check compiles the IPv6 pattern: ~3 ms of a warm call.
    // Without an agent Node sends `Connection: close`, as a fresh agent did.
    createConnection: () => createConnection(socket),
    // Node refuses a header whose value is undefined: an absent config is stripped here, once.
    headers: definedOnly({
      "content-type": "application/json",
      "content-length": Buffer.byteLength(payload),
      [VERSION_HEADER]: PACKAGE_VERSION,
      // Percent-encoded: a header value cannot carry every character a path can.
      [CONFIG_HEADER]: config === undefined ? undefined : encodeURIComponent(config),
    }),
  });
}

/** What reading an answer leads to; `lost` with `cut` when the connection must be closed too. */
interface AnswerOutcome {
  readonly onProgress: DaemonRequestOptions["onProgress"];
  readonly result: (result: Envelope) => void;
  readonly error: (error: Error) => void;
  readonly lost: (detail: string, cut: boolean) => void;
}

/** Reads the daemon's answer: progress lines, then a result or an error line (newline-delimited JSON). */
function readAnswer(res: IncomingMessage, outcome: AnswerOutcome): void {
  res.setEncoding("utf8");
  let buffer = "";
  let size = 0;
  const line = (text: string) => {
    if (!text.trim()) return;
    let parsed: ResponseLine;
    try {
      parsed = JSON.parse(text) as ResponseLine;
    } catch {
      return outcome.lost("it sent a line that is not JSON", true);
    }
    if ("progress" in parsed) outcome.onProgress?.(parsed.progress);
    else if ("result" in parsed) outcome.result(parsed.result);
    else if ("error" in parsed) outcome.error(daemonAnswered(parsed.error));
  };
  res.on("data", (chunk: string) => {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) return outcome.lost("its answer was too large", true);
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      line(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
    }
  });
  res.on("end", () => {
    line(buffer);
    outcome.lost("the connection closed before the answer", false);
  });
  res.on("aborted", () => outcome.lost("the connection was cut", false));
  res.on("error", (error) => outcome.lost(error.message, false));
}
