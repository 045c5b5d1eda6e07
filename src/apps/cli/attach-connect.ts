import { createConnection, type Socket } from "node:net";
import { attachRefused, daemonDidNotStart } from "../../errors/cli-errors.js";
import { attachConnectionClosed } from "../../errors/daemon-errors.js";
import { type DaemonPaths, ensureRuntimeFolder } from "../daemon/paths.js";
import {
  ATTACH_MODE_HEADER,
  ATTACH_RESULTS_HEADER,
  ATTACH_UPGRADE,
  CONFIG_HEADER,
  PACKAGE_VERSION,
  VERSION_HEADER,
} from "../daemon/protocol.js";
import { spawnDaemon } from "./daemon-spawn.js";
import { terminalText } from "./terminal.js";

/** How long `attach` waits for a daemon it started (or one starting) to take the session. */
export const ATTACH_START_WAIT_MS = 30_000;
/** The daemon's answer to the upgrade is a few short header lines: more is not a daemon. */
const MAX_HANDSHAKE_BYTES = 16 * 1024;
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Nothing listens at the socket (no file, or a dead daemon's): start one. */
class Absent extends Error {}

/**
 * The connection dropped before the daemon answered: a daemon starting up or going down (a crash, a
 * config reload's restart) can do that. Tried again within the wait, never taken as a refusal.
 */
class Dropped extends Error {
  constructor(readonly refusal: Error) {
    super(refusal.message);
  }
}

export interface AttachTarget {
  readonly paths: DaemonPaths;
  /** `--code-mode`: the session is served the three code-mode tools instead of every tool. */
  readonly codeMode: boolean;
  /** `--llm-results`: the session's tool results as text for a model. */
  readonly llmResults?: boolean;
  /** The --config the user gave, passed on to a daemon this starts. */
  readonly config: string | undefined;
  readonly idleMs: number;
  readonly trustProject: boolean;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * One upgraded connection to the daemon at `paths.socket` (`GET /attach`, the config and version
 * headers the daemon checks, then `101`): from there on the socket carries one MCP session.
 */
function openChannel(
  paths: DaemonPaths,
  { codeMode, llmResults }: Pick<AttachTarget, "codeMode" | "llmResults">,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(paths.socket);
    let answer = Buffer.alloc(0);
    let connected = false;
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(attachRefused({ socket: paths.socket, detail: "it did not answer" })),
      HANDSHAKE_TIMEOUT_MS,
    );
    timer.unref();
    socket.on("connect", () => {
      connected = true;
      socket.write(
        `GET /attach HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: ${ATTACH_UPGRADE}\r\n` +
          `${VERSION_HEADER}: ${PACKAGE_VERSION}\r\n${CONFIG_HEADER}: ${encodeURIComponent(paths.config)}\r\n` +
          `${codeMode ? `${ATTACH_MODE_HEADER}: code\r\n` : ""}` +
          `${llmResults ? `${ATTACH_RESULTS_HEADER}: llm\r\n` : ""}\r\n`,
      );
    });
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf("\r\n\r\n");
      if (end < 0) {
        if (answer.length > MAX_HANDSHAKE_BYTES)
          fail(attachRefused({ socket: paths.socket, detail: "it did not answer as a daemon" }));
        return;
      }
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", onClose);
      const status = answer.subarray(0, answer.indexOf("\r\n")).toString("latin1");
      if (!/^HTTP\/1\.1 101 /.test(status)) {
        const body = answer
          .subarray(end + 4)
          .toString("utf8")
          .trim();
        return fail(attachRefused({ socket: paths.socket, detail: refusalDetail(status, body) }));
      }
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const onError = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const absent = !connected && (error.code === "ENOENT" || error.code === "ECONNREFUSED");
      const refusal = attachRefused({ socket: paths.socket, detail: error.code ?? error.message });
      // No answer has come (onData removes this handler once it has): the drop is the daemon's state.
      fail(absent ? new Absent(error.code) : new Dropped(refusal));
    };
    const onClose = () => onError(attachConnectionClosed());
    socket.on("data", onData);
    socket.on("error", onError);
    socket.on("close", onClose);
  });
}

/** The daemon's own words, when it refused with its JSON error line (another version or config). */
function refusalDetail(status: string, body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message;
  } catch {
    // not the daemon's JSON
  }
  return `it answered ${JSON.stringify(status.slice(0, 80))}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An MCP channel to the config's daemon, starting the daemon when none answers (as `daemon start`
 * does, detached, with its log) and waiting for it up to ATTACH_START_WAIT_MS. Only a runtime folder
 * that is safely this user's is used (ensureRuntimeFolder throws otherwise).
 */
export async function connectAttached(target: AttachTarget): Promise<Socket> {
  ensureRuntimeFolder(target.env);
  const deadline = Date.now() + ATTACH_START_WAIT_MS;
  let started: (() => boolean) | undefined;
  for (;;) {
    try {
      return await openChannel(target.paths, target);
    } catch (error) {
      if (error instanceof Dropped) {
        if (Date.now() > deadline) throw error.refusal;
        await sleep(100);
        continue;
      }
      if (!(error instanceof Absent)) throw error;
    }
    // The daemon that would answer died, or exited at once (a broken config): its log says why.
    if (Date.now() > deadline || started?.()) {
      const { readFileSync } = await import("node:fs");
      let tail = "";
      try {
        tail = readFileSync(target.paths.log, "utf8").split("\n").slice(-12).join("\n").trim();
      } catch {
        // no log yet
      }
      throw daemonDidNotStart({
        config: target.paths.config,
        log: target.paths.log,
        tail: terminalText(tail),
      });
    }
    started ??= spawnDaemon(target);
    await sleep(40);
  }
}
