import type { ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import type { Writable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { serializeMessage } from "@modelcontextprotocol/client";
import { PROCESS_STOP } from "../config/defaults.js";
import {
  closedBeforeStart,
  processNotRunning,
  streamBroken,
  transportStartedTwice,
} from "../errors/connection-errors.js";
import { TurnWrites } from "../util/turn-writes.js";
import { DEFAULT_MAX_KEPT_BYTES, LineFramer, type OversizedLine } from "./framing.js";
import { deserializeLine } from "./message.js";
import { reapGroup, stopProcessTree, trackGroup, useProcessGroups } from "./process-tree.js";
import { type SpawnSpec, spawnServer } from "./spawn-server.js";
import { RESULT_TOO_LARGE_RPC_CODE } from "./transport-kinds.js";
import { newTreeTag } from "./tree-tag.js";

export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Complete environment of the child (see `childEnvironment`). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly maxMessageBytes?: number;
  /** Each string literal of an oversized message is cut to this many bytes while it streams in. */
  readonly stringCapBytes?: number;
  /** What may be kept of one message after string literals are cut (see framing.ts); bounds memory. */
  readonly maxKeptBytes?: number;
  /**
   * How long a line that is being dropped for its size may go without new bytes before the stream is
   * declared broken: a server that wrote a flood without a newline and then stopped would otherwise
   * swallow the next answer into that line, and every pending call would wait for its timeout.
   */
  readonly stalledLineMs?: number;
  /** A line being dropped that grows past this without a newline breaks the stream (default 2 GiB). */
  readonly brokenLineBytes?: number;
  /**
   * Rewrites what is spawned before it is (a sandbox wraps the command: see sandbox/); a rejection
   * fails the start and nothing is spawned.
   */
  readonly wrapSpawn?: (spec: SpawnSpec) => Promise<SpawnSpec>;
  /**
   * Put the server's process group under the host's watchdog, which ends it when the host dies, even
   * by SIGKILL (POSIX; default true there; see watchdog.ts).
   */
  readonly supervise?: boolean;
  /** Each stderr line; `complete` is false for a piece of an overlong line that has no end yet. */
  readonly onStderrLine?: (line: string, complete: boolean) => void;
  /** Output on stdout that is not a JSON-RPC message: reported, then skipped. */
  readonly onNoise?: (kind: NoiseKind, sample: string) => void;
}

export type NoiseKind = "non-json" | "not-json-rpc" | "oversized";

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Past V8's string limit four times over: no real message is that long; a stream without newlines is. */
const DEFAULT_BROKEN_LINE_BYTES = 2 * 1024 * 1024 * 1024;

/** How long a line being dropped may go without new bytes (see `stalledLineMs`). */
const DEFAULT_STALLED_LINE_MS = 3000;

interface StdioLimits {
  readonly maxMessageBytes: number;
  readonly maxKeptBytes: number;
  readonly brokenLineBytes: number;
  readonly stalledLineMs: number;
  readonly supervise: boolean;
}

/** The transport's limits with every default applied (0 maxMessageBytes: no cap of its own). */
function stdioLimits(options: StdioTransportOptions): StdioLimits {
  return {
    maxMessageBytes: options.maxMessageBytes ?? 0,
    maxKeptBytes: options.maxKeptBytes ?? DEFAULT_MAX_KEPT_BYTES,
    brokenLineBytes: options.brokenLineBytes ?? DEFAULT_BROKEN_LINE_BYTES,
    stalledLineMs: options.stalledLineMs ?? DEFAULT_STALLED_LINE_MS,
    supervise: options.supervise ?? useProcessGroups,
  };
}

export { RESULT_TOO_LARGE_RPC_CODE };

/**
 * The configured working directory of a stdio server does not exist (or is no directory). Not a
 * McpBridgeError: the connection wraps it, as every start failure, with the server's name.
 */
export class WorkingDirectoryError extends Error {
  readonly cwd: string;
  constructor(cwd: string) {
    super(
      `its working directory "${cwd}" does not exist or is not a directory; create it or fix "cwd" in the config`,
    );
    this.name = "WorkingDirectoryError";
    this.cwd = cwd;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Resolves once the stream drains or can no longer be written (so no sender waits forever). */
function waitForDrain(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.once("drain", done);
    stream.once("close", done);
    stream.once("error", done);
  });
}

/**
 * A stdio client transport implementing the SDK's Transport contract. Message parsing and
 * serialization are the SDK's; what is ours is the process: its own process group (so `npx`-style
 * wrappers leave no children behind), staged shutdown of the whole tree, stderr kept for diagnostics
 * instead of printed over the host's terminal, and framing that survives noise and huge messages.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioTransportOptions;
  /** The limits of `options`, defaulted once here. */
  readonly #limits: StdioLimits;
  #child: ChildProcess | undefined;
  #started = false;
  #exit: ExitInfo | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;
  readonly #framer: LineFramer;
  #stallTimer: NodeJS.Timeout | undefined;
  #drained: Promise<unknown> | undefined;
  /** Coalesced writes to the server's stdin (see turn-writes.ts). */
  #stdinWrites: TurnWrites | undefined;
  /** Messages read after a notification, delivered once its handler has run (see #deliver). */
  #heldBehind: JSONRPCMessage[] | undefined;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#limits = stdioLimits(options);
    this.#framer = new LineFramer({
      onLine: (line) => this.#handleLine(line),
      onOversized: (info) => this.#handleOversized(info),
      // The limits resolved once above; 0 maxMessageBytes is no cap of the transport's own.
      maxLineBytes: this.#limits.maxMessageBytes || undefined,
      stringCapBytes: options.stringCapBytes,
      maxKeptBytes: this.#limits.maxKeptBytes,
    });
  }

  /** The server's pid (it leads its process group on POSIX). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended, once it has. */
  get exitInfo(): ExitInfo | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#started) throw transportStartedTwice();
    this.#started = true;
    // spawn() reports a missing cwd as ENOENT of the command, which reads as "command not on PATH".
    const cwd = this.#options.cwd;
    if (cwd !== undefined && !isDirectory(cwd)) return Promise.reject(new WorkingDirectoryError(cwd));
    const { command, args, env, wrapSpawn } = this.#options;
    const spec = { command, args, env, cwd };
    if (!wrapSpawn) return this.#spawn(spec);
    return wrapSpawn(spec).then((wrapped) => {
      // Closed while the spec was being prepared: nothing may be spawned any more.
      if (this.#closing) {
        wrapped.release?.();
        throw closedBeforeStart();
      }
      return this.#spawn(wrapped);
    });
  }

  #spawn(spec: SpawnSpec): Promise<void> {
    const tag = newTreeTag();
    const { child, started } = spawnServer(spec, tag);
    this.#child = child;
    // In the same synchronous turn as the spawn: see the window in watchdog.ts.
    if (child.pid !== undefined) trackGroup(child.pid, this.#limits.supervise, tag);
    return new Promise((resolve, reject) => {
      let running = false;
      started.then(
        () => {
          running = true;
          resolve();
        },
        (error: unknown) => reject(error),
      );
      child.once("error", (error) => {
        if (running) this.onerror?.(error);
        else this.#finish();
      });
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        // Orphans of a crashed server must not outlive it.
        if (child.pid !== undefined && !this.#closing) void reapGroup(child.pid, this.#termGraceMs);
      });
      child.once("close", () => this.#finish());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        this.#framer.push(chunk);
        this.#watchDroppedLine();
      });
      child.stdout?.on("error", (error) => this.onerror?.(error));
      let partial = "";
      let cut = false;
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (text: string) => {
        const lines = (partial + text).split(/\r?\n/);
        partial = lines.pop() ?? "";
        for (const line of lines) this.#options.onStderrLine?.(line, true);
        if (lines.length > 0) cut = false;
        // A server that writes a huge stderr line with no newline must not grow memory without bound:
        // the piece is passed on marked incomplete (its reader may hold back its end).
        if (partial.length > 8192) {
          this.#options.onStderrLine?.(partial, false);
          partial = "";
          cut = true;
        }
      });
      child.stderr?.on("end", () => {
        if (partial || cut) this.#options.onStderrLine?.(partial, true);
        partial = "";
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = serializeMessage(message);
    // Backpressure: once the pipe is full, every sender waits on one shared drain instead of adding a
    // listener each (hundreds of calls to a server that stopped reading would otherwise make Node warn
    // on the host's stderr) and writes only once the server reads again, so the pending messages wait
    // in their callers rather than piling up in the pipe's buffer. Waiters resume in order.
    while (this.#drained) await this.#drained;
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable || this.#closing) {
      throw processNotRunning();
    }
    // Write errors surface through stdin's "error" listener (and then the process's exit), which fails
    // every pending request; a per-write callback would cost a closure on the hot path for nothing.
    if (!this.#writes(stdin).write(line))
      this.#drained = waitForDrain(stdin).then(() => (this.#drained = undefined));
  }

  #writes(stdin: Writable): TurnWrites {
    this.#stdinWrites ??= new TurnWrites(stdin);
    return this.#stdinWrites;
  }

  close(): Promise<void> {
    if (!this.#closing) {
      const child = this.#child;
      this.#closing = (async () => {
        if (child) {
          await stopProcessTree(child, {
            stdinGraceMs: PROCESS_STOP.stdinGraceMs,
            termGraceMs: this.#termGraceMs,
          });
        }
        this.#finish();
      })();
    }
    return this.#closing;
  }

  get #termGraceMs(): number {
    return PROCESS_STOP.termGraceMs;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#stallTimer) clearTimeout(this.#stallTimer);
    this.#framer.clear();
    this.onclose?.();
  }

  #handleLine(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeLine(line);
    } catch (error) {
      this.#options.onNoise?.(error instanceof SyntaxError ? "non-json" : "not-json-rpc", line.slice(0, 200));
      return;
    }
    this.#deliver(message);
  }

  /**
   * Hands messages on in order, and lets a notification's handler run before what follows it. The SDK
   * runs notification handlers a microtask later but settles a response at once, dropping the
   * request's progress handler: a progress notification read in the same chunk as its response would
   * be lost. So after a notification, later messages wait for the next microtask (behind its handler).
   */
  #deliver(message: JSONRPCMessage): void {
    if (this.#heldBehind) {
      this.#heldBehind.push(message);
      return;
    }
    this.onmessage?.(message);
    if ("method" in message && !("id" in message)) {
      const held: JSONRPCMessage[] = [];
      this.#heldBehind = held;
      queueMicrotask(() => {
        this.#heldBehind = undefined;
        for (const next of held) this.#deliver(next);
      });
    }
  }

  #handleOversized(info: OversizedLine): void {
    this.#options.onNoise?.("oversized", `${info.bytes} bytes`);
    if (info.id === undefined) return;
    const reason =
      info.limit === "line"
        ? `exceeds maxMessageBytes (${this.#limits.maxMessageBytes}); it was dropped. Raise maxMessageBytes for this server or ask the tool for less output.`
        : `holds more than ${this.#limits.maxKeptBytes} bytes even with its long strings cut (arrays of numbers, deep structures); it was dropped. Ask the tool for less output.`;
    this.onmessage?.({
      jsonrpc: "2.0",
      id: info.id,
      error: {
        code: RESULT_TOO_LARGE_RPC_CODE,
        message: `Response of ${info.bytes} bytes ${reason}`,
      },
    });
  }

  /**
   * A line being dropped for its size normally ends soon with a newline. One that stops growing
   * without ending (see `stalledLineMs`), or grows past `brokenLineBytes`, means the stream is broken:
   * every answer would be swallowed into it. The stall check runs after a timer and once more after
   * pending I/O, so a host whose event loop was merely busy does not misjudge a slow line.
   */
  #watchDroppedLine(): void {
    if (!this.#framer.dropping || this.#closing) return;
    const bytes = this.#framer.lineBytes;
    if (bytes > this.#limits.brokenLineBytes) {
      this.#breakStream(`wrote more than ${bytes} bytes on stdout without a newline`);
      return;
    }
    if (this.#stallTimer) return;
    const check = (seen: number) => {
      this.#stallTimer = setTimeout(() => {
        setImmediate(() => {
          this.#stallTimer = undefined;
          if (!this.#framer.dropping || this.#closing) return;
          const now = this.#framer.lineBytes;
          if (now === seen) this.#breakStream(`wrote ${now} bytes on stdout without a newline and stopped`);
          else check(now);
        });
      }, this.#limits.stalledLineMs);
      this.#stallTimer.unref();
    };
    check(bytes);
  }

  #breakStream(what: string): void {
    this.onerror?.(streamBroken({ what }));
    void this.close();
  }
}
