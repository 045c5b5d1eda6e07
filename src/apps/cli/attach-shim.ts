import type { Duplex, Readable, Writable } from "node:stream";
import { LineFramer, type OversizedLine } from "../../transport/framing.js";

/**
 * The byte relay of `mcp-bridge attach`: the host's stdio on one side, an MCP session served by the
 * config's daemon on the other (newline-delimited JSON-RPC both ways). It reads just enough of each
 * message to survive the daemon going away (a crash, `daemon stop`, an upgrade):
 * - the client's `initialize` (and `notifications/initialized`), its resource subscriptions and its
 *   log level are remembered, and replayed on the next connection (the answer to the replayed
 *   `initialize` is swallowed: the client already has one);
 * - requests the client sent that were not answered when the connection dropped get a JSON-RPC error
 *   from the relay itself (the daemon that would have answered is gone);
 * - once reconnected, the client is told every list may have changed (tools, resources, prompts).
 * Lines are bounded both ways; a longer one is dropped, and answered with an error when it was a
 * request.
 */

/** The longest line taken from the client (the daemon's own limit is below it: 10 MiB). */
export const MAX_CLIENT_LINE_BYTES = 16 * 1024 * 1024;
/** The longest line taken from the daemon (a result; the framer keeps no more than this of a line). */
export const MAX_DAEMON_LINE_BYTES = 32 * 1024 * 1024;
/** While reconnecting, what the client sends is held up to this much; past it, requests fail at once. */
const MAX_HELD_BYTES = 16 * 1024 * 1024;

/** JSON-RPC error codes the relay answers with (implementation-defined server errors). */
export const DAEMON_GONE_RPC_CODE = -32001;
export const LINE_TOO_LARGE_RPC_CODE = -32003;

/** The prefix of the ids of the relay's own requests (the replayed `initialize`). */
const OWN_ID = "mcp-bridge-attach/";

type Id = string | number;
interface Message {
  readonly id?: Id | null;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

export const daemonGoneMessage = (method: string) =>
  `mcp-bridge attach: the daemon serving this session went away while "${method}" ran (it crashed, was stopped or restarted); the request may have been partly done. mcp-bridge reconnects by itself: try again.`;
const lineTooLargeMessage = (from: string, bytes: number, limit: number) =>
  `mcp-bridge attach: a message ${from} of ${bytes} bytes is over the ${limit}-byte limit and was dropped.`;
const heldTooMuchMessage = (method: string) =>
  `mcp-bridge attach: "${method}" was not sent: the daemon is reconnecting and too much is waiting for it; try again.`;

export interface AttachRelayOptions {
  readonly stdin: Readable;
  readonly stdout: Writable;
  /** Opens a new MCP channel to the daemon (starting one when none runs); rejects when it cannot. */
  readonly connect: () => Promise<Duplex>;
  /** Told why the relay reconnects or gives up (never a message's content). */
  readonly onProblem: (message: string) => void;
}

/**
 * Relays until the client closes stdin (resolves 0) or the daemon cannot be reached again (1).
 * The first connection is the caller's (so a daemon that cannot be reached at all is reported before
 * the host sends anything).
 */
export function relayAttached(first: Duplex, options: AttachRelayOptions): Promise<number> {
  const { stdin, stdout, onProblem } = options;
  let channel: Duplex | undefined;
  let initialize: Message | undefined;
  let initialized = false;
  let logLevel: Message | undefined;
  const subscriptions = new Map<string, Message>();
  /** The client's requests sent to the current channel and not yet answered: id -> method. */
  const pending = new Map<Id, string>();
  /** Lines from the client while no channel is open. */
  let held: string[] = [];
  let heldBytes = 0;
  let ownIds = 0;
  let clientDone = false;
  let finish: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => {
    finish = resolve;
  });

  // A client that does not read holds the daemon's side (backpressure), not this process's memory.
  const writeClient = (line: string) => {
    if (!stdout.writable) return;
    const from = channel;
    if (!stdout.write(`${line}\n`) && from) {
      from.pause();
      stdout.once("drain", () => from.resume());
    }
  };
  const toClient = (message: unknown) => writeClient(JSON.stringify(message));
  const fail = (id: Id, code: number, message: string) =>
    toClient({ jsonrpc: "2.0", id, error: { code, message } });

  const toDaemon = (line: string) => {
    if (!channel?.writable) return;
    if (!channel.write(`${line}\n`)) {
      stdin.pause();
      channel.once("drain", () => stdin.resume());
    }
  };

  const clientFramer = new LineFramer({
    onLine: (line) => fromClient(line),
    onOversized: (info: OversizedLine) => {
      onProblem(lineTooLargeMessage("from the client", info.bytes, MAX_CLIENT_LINE_BYTES));
      if (info.id !== undefined)
        fail(
          info.id,
          LINE_TOO_LARGE_RPC_CODE,
          lineTooLargeMessage("from the client", info.bytes, MAX_CLIENT_LINE_BYTES),
        );
    },
    maxLineBytes: MAX_CLIENT_LINE_BYTES,
    capStringsAfterBytes: MAX_CLIENT_LINE_BYTES,
    maxKeptBytes: MAX_CLIENT_LINE_BYTES,
  });

  function fromClient(line: string): void {
    if (line.trim() === "") return;
    const message = parse(line);
    const method = message?.method;
    const id = message?.id;
    if (message && method !== undefined) {
      if (method === "initialize") initialize = message;
      else if (method === "notifications/initialized") initialized = true;
      else if (method === "logging/setLevel") logLevel = message;
      else if (method === "resources/subscribe" || method === "resources/unsubscribe") {
        const uri = String(message.params?.uri);
        if (method === "resources/subscribe") subscriptions.set(uri, message);
        else subscriptions.delete(uri);
      }
    }
    const request = method !== undefined && (typeof id === "string" || typeof id === "number");
    if (channel) {
      if (request) pending.set(id, method);
      toDaemon(line);
      return;
    }
    if (heldBytes + line.length > MAX_HELD_BYTES) {
      if (request) fail(id, DAEMON_GONE_RPC_CODE, heldTooMuchMessage(method));
      return;
    }
    held.push(line);
    heldBytes += line.length;
  }

  function fromDaemon(line: string): void {
    if (line.trim() === "") return;
    const message = parse(line);
    const id = message?.id;
    if (message && message.method === undefined && (typeof id === "string" || typeof id === "number")) {
      // The answer to the replayed initialize: the client has its own already.
      if (typeof id === "string" && id.startsWith(OWN_ID)) return;
      pending.delete(id);
    }
    writeClient(line);
  }

  function attach(next: Duplex, replay: boolean): void {
    channel = next;
    const framer = new LineFramer({
      onLine: fromDaemon,
      onOversized: (info) => {
        onProblem(lineTooLargeMessage("from the daemon", info.bytes, MAX_DAEMON_LINE_BYTES));
        if (info.id !== undefined && pending.delete(info.id))
          fail(
            info.id,
            LINE_TOO_LARGE_RPC_CODE,
            lineTooLargeMessage("from the daemon", info.bytes, MAX_DAEMON_LINE_BYTES),
          );
      },
      maxLineBytes: MAX_DAEMON_LINE_BYTES,
      capStringsAfterBytes: MAX_DAEMON_LINE_BYTES,
      maxKeptBytes: MAX_DAEMON_LINE_BYTES,
    });
    next.on("data", (chunk: Buffer) => framer.push(chunk));
    let dropped = false;
    const onDrop = () => {
      if (dropped) return;
      dropped = true;
      framer.clear();
      next.destroy();
      if (channel !== next) return;
      channel = undefined;
      stdin.resume();
      void reconnect();
    };
    next.on("end", onDrop);
    next.on("close", onDrop);
    next.on("error", onDrop);
    if (replay) {
      if (initialize) toDaemon(JSON.stringify({ ...initialize, id: `${OWN_ID}initialize-${++ownIds}` }));
      if (initialized) toDaemon(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      if (logLevel) toDaemon(JSON.stringify({ ...logLevel, id: `${OWN_ID}setLevel-${++ownIds}` }));
      for (const subscribe of subscriptions.values())
        toDaemon(JSON.stringify({ ...subscribe, id: `${OWN_ID}subscribe-${++ownIds}` }));
    }
    const waiting = held;
    held = [];
    heldBytes = 0;
    for (const line of waiting) fromClient(line);
    if (replay && initialize) {
      for (const list of ["tools", "resources", "prompts"])
        toClient({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` });
    }
  }

  async function reconnect(): Promise<void> {
    // Nobody else will answer what the gone daemon was doing.
    for (const [id, method] of pending) fail(id, DAEMON_GONE_RPC_CODE, daemonGoneMessage(method));
    pending.clear();
    if (clientDone) return finish(0);
    onProblem("the daemon went away; reconnecting");
    try {
      const next = await options.connect();
      if (clientDone) {
        next.end();
        return finish(0);
      }
      attach(next, true);
    } catch (error) {
      onProblem(
        `could not reach the daemon again: ${error instanceof Error ? error.message : String(error)}`,
      );
      for (const line of held) {
        const message = parse(line);
        if (
          message?.method !== undefined &&
          (typeof message.id === "string" || typeof message.id === "number")
        )
          fail(message.id, DAEMON_GONE_RPC_CODE, daemonGoneMessage(message.method));
      }
      held = [];
      finish(1);
    }
  }

  const onClientEnd = () => {
    if (clientDone) return;
    clientDone = true;
    clientFramer.clear();
    // The daemon ends the session (and cancels its calls) when the channel ends.
    if (channel) channel.end();
    else finish(0);
  };
  stdin.on("data", (chunk: Buffer) => clientFramer.push(chunk));
  stdin.on("end", onClientEnd);
  stdin.on("close", onClientEnd);
  stdin.on("error", onClientEnd);
  stdout.on("error", onClientEnd);
  attach(first, false);
  return finished;
}

function parse(line: string): Message | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Message)
      : undefined;
  } catch {
    return undefined;
  }
}
