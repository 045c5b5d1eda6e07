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
  return new AttachRelay(options).run(first);
}

/**
 * What the client set up in its session, replayed on a new connection: its `initialize` (and
 * `notifications/initialized`), its log level and its resource subscriptions.
 */
export class SessionMemory {
  #initialize: Message | undefined;
  #initialized = false;
  #logLevel: Message | undefined;
  readonly #subscriptions = new Map<string, Message>();
  #ownIds = 0;

  /** Notes what a message from the client sets up. */
  note(message: Message): void {
    const method = message.method;
    if (method === "initialize") this.#initialize = message;
    else if (method === "notifications/initialized") this.#initialized = true;
    else if (method === "logging/setLevel") this.#logLevel = message;
    else if (method === "resources/subscribe") this.#subscriptions.set(String(message.params?.uri), message);
    else if (method === "resources/unsubscribe") this.#subscriptions.delete(String(message.params?.uri));
  }

  /** Whether the client initialized its session (so a new connection is a reconnection it is told of). */
  get initializedOnce(): boolean {
    return this.#initialize !== undefined;
  }

  /** The lines that set the session up again, with ids of the relay's own (their answers are dropped). */
  replay(): string[] {
    const own = (message: Message, name: string) =>
      JSON.stringify({ ...message, id: `${OWN_ID}${name}-${++this.#ownIds}` });
    return [
      ...(this.#initialize ? [own(this.#initialize, "initialize")] : []),
      ...(this.#initialized ? [JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })] : []),
      ...(this.#logLevel ? [own(this.#logLevel, "setLevel")] : []),
      ...[...this.#subscriptions.values()].map((subscribe) => own(subscribe, "subscribe")),
    ];
  }
}

const isRequest = (message: Message | undefined): message is Message & { id: Id; method: string } =>
  message?.method !== undefined && (typeof message.id === "string" || typeof message.id === "number");

/** One relay between the host's stdio and the daemon's channels (see relayAttached). */
class AttachRelay {
  readonly #options: AttachRelayOptions;
  #channel: Duplex | undefined;
  readonly #memory = new SessionMemory();
  /** The client's requests sent to the current channel and not yet answered: id -> method. */
  readonly #pending = new Map<Id, string>();
  /** Lines from the client while no channel is open. */
  #held: string[] = [];
  #heldBytes = 0;
  #clientDone = false;
  #finish: (code: number) => void = () => {};
  readonly #clientFramer: LineFramer;

  constructor(options: AttachRelayOptions) {
    this.#options = options;
    this.#clientFramer = new LineFramer({
      onLine: (line) => this.#fromClient(line),
      onOversized: (info: OversizedLine) => this.#oversized("from the client", info, MAX_CLIENT_LINE_BYTES),
      maxLineBytes: MAX_CLIENT_LINE_BYTES,
      capStringsAfterBytes: MAX_CLIENT_LINE_BYTES,
      maxKeptBytes: MAX_CLIENT_LINE_BYTES,
    });
  }

  run(first: Duplex): Promise<number> {
    const finished = new Promise<number>((resolve) => {
      this.#finish = resolve;
    });
    const { stdin, stdout } = this.#options;
    const onClientEnd = () => this.#clientEnded();
    stdin.on("data", (chunk: Buffer) => this.#clientFramer.push(chunk));
    stdin.on("end", onClientEnd);
    stdin.on("close", onClientEnd);
    stdin.on("error", onClientEnd);
    stdout.on("error", onClientEnd);
    this.#attach(first, false);
    return finished;
  }

  // A client that does not read holds the daemon's side (backpressure), not this process's memory.
  #writeClient(line: string): void {
    const { stdout } = this.#options;
    if (!stdout.writable) return;
    const from = this.#channel;
    if (!stdout.write(`${line}\n`) && from) {
      from.pause();
      stdout.once("drain", () => from.resume());
    }
  }

  #toClient(message: unknown): void {
    this.#writeClient(JSON.stringify(message));
  }

  #fail(id: Id, code: number, message: string): void {
    this.#toClient({ jsonrpc: "2.0", id, error: { code, message } });
  }

  #toDaemon(line: string): void {
    const channel = this.#channel;
    if (!channel?.writable) return;
    if (!channel.write(`${line}\n`)) {
      this.#options.stdin.pause();
      channel.once("drain", () => this.#options.stdin.resume());
    }
  }

  /** A line over the limit, dropped: answered with an error when it was a request still owed one. */
  #oversized(from: string, info: OversizedLine, limit: number): void {
    this.#options.onProblem(lineTooLargeMessage(from, info.bytes, limit));
    const owed = from === "from the client" || (info.id !== undefined && this.#pending.delete(info.id));
    if (info.id !== undefined && owed)
      this.#fail(info.id, LINE_TOO_LARGE_RPC_CODE, lineTooLargeMessage(from, info.bytes, limit));
  }

  #fromClient(line: string): void {
    if (line.trim() === "") return;
    const message = parse(line);
    if (message?.method !== undefined) this.#memory.note(message);
    const request = isRequest(message) ? message : undefined;
    if (this.#channel) {
      if (request) this.#pending.set(request.id, request.method);
      this.#toDaemon(line);
      return;
    }
    if (this.#heldBytes + line.length > MAX_HELD_BYTES) {
      if (request) this.#fail(request.id, DAEMON_GONE_RPC_CODE, heldTooMuchMessage(request.method));
      return;
    }
    this.#held.push(line);
    this.#heldBytes += line.length;
  }

  #fromDaemon(line: string): void {
    if (line.trim() === "") return;
    const message = parse(line);
    const id = message?.id;
    if (message && message.method === undefined && (typeof id === "string" || typeof id === "number")) {
      // The answer to the replayed initialize: the client has its own already.
      if (typeof id === "string" && id.startsWith(OWN_ID)) return;
      this.#pending.delete(id);
    }
    this.#writeClient(line);
  }

  #attach(next: Duplex, replay: boolean): void {
    this.#channel = next;
    const framer = new LineFramer({
      onLine: (line) => this.#fromDaemon(line),
      onOversized: (info) => this.#oversized("from the daemon", info, MAX_DAEMON_LINE_BYTES),
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
      if (this.#channel !== next) return;
      this.#channel = undefined;
      this.#options.stdin.resume();
      void this.#reconnect();
    };
    next.on("end", onDrop);
    next.on("close", onDrop);
    next.on("error", onDrop);
    if (replay) for (const line of this.#memory.replay()) this.#toDaemon(line);
    const waiting = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    for (const line of waiting) this.#fromClient(line);
    if (replay && this.#memory.initializedOnce) {
      for (const list of ["tools", "resources", "prompts"])
        this.#toClient({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` });
    }
  }

  async #reconnect(): Promise<void> {
    // Nobody else will answer what the gone daemon was doing.
    for (const [id, method] of this.#pending) this.#fail(id, DAEMON_GONE_RPC_CODE, daemonGoneMessage(method));
    this.#pending.clear();
    if (this.#clientDone) return this.#finish(0);
    this.#options.onProblem("the daemon went away; reconnecting");
    try {
      const next = await this.#options.connect();
      if (this.#clientDone) {
        next.end();
        return this.#finish(0);
      }
      this.#attach(next, true);
    } catch (error) {
      this.#options.onProblem(
        `could not reach the daemon again: ${error instanceof Error ? error.message : String(error)}`,
      );
      for (const line of this.#held) {
        const message = parse(line);
        if (isRequest(message))
          this.#fail(message.id, DAEMON_GONE_RPC_CODE, daemonGoneMessage(message.method));
      }
      this.#held = [];
      this.#finish(1);
    }
  }

  #clientEnded(): void {
    if (this.#clientDone) return;
    this.#clientDone = true;
    this.#clientFramer.clear();
    // The daemon ends the session (and cancels its calls) when the channel ends.
    if (this.#channel) this.#channel.end();
    else this.#finish(0);
  }
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
