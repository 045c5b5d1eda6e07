/**
 * `mcp-bridge sandbox learn SERVER`: runs a stdio server once in a broad sandbox under strace, lets
 * the caller exercise it (list its tools, make the calls the user named), stops it, and proposes the
 * narrowest `sandbox` grant from what it did (learn-strace.ts, learn-propose.ts). strace runs inside
 * bwrap, in front of the server, with execve (never a shell), writing into a private host folder the
 * sandbox shows at the same path; the trace is read bounded, then removed.
 *
 * The broad sandbox shows every top-level folder read-only and the working folder writable, and keeps
 * what every sandbox makes private (`/tmp`, the home folder) private, so what the server does there
 * needs no grant, and has the whole network.
 */

import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { Transport } from "@modelcontextprotocol/client";
import type { SandboxPolicy, StdioServerDefinition } from "../../config/model.js";
import { learnUnavailable } from "../../errors/index.js";
import { createTransport } from "../create.js";
import { findCommand } from "./host-facts.js";
import { type LearnedGrant, proposeGrant, sandboxBlock } from "./learn-propose.js";
import { parseTrace } from "./learn-strace.js";
import { isWithin } from "./sandbox-plan.js";
import { type SandboxTracer, sandboxPlanOf } from "./sandboxed-spawn.js";

/** Most of a trace read (the rest is ignored, and said): a long session traces many calls. */
export const MAX_TRACE_BYTES = 64 * 1024 * 1024;

export interface LearnOptions<R> {
  readonly definition: StdioServerDefinition;
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The folder the user works in: writable while learning (a server's files are often there). */
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
  /** What the server is asked to do while it is traced (connect, list, call), on its transport. */
  readonly exercise: (transport: Transport) => Promise<R>;
}

export interface LearnResult<R> {
  readonly learned: LearnedGrant;
  /** The server's `sandbox` block to paste: its own grants and the learned ones. */
  readonly sandbox: ReturnType<typeof sandboxBlock>;
  readonly exercised: R;
  /** The trace was longer than MAX_TRACE_BYTES: what came after is not in the proposal. */
  readonly truncated: boolean;
}

/** Every top-level folder (read-only) but the kernel's, `/tmp` and the one holding the home folder. */
export function broadPolicy(configured: SandboxPolicy | undefined, cwd: string, home: string): SandboxPolicy {
  const hidden = ["/proc", "/sys", "/dev", "/tmp"];
  const tops = readdirSync("/")
    .map((name) => `/${name}`)
    .filter((path) => !hidden.includes(path) && !isWithin(home, path));
  return {
    read: [...tops, ...(configured?.read ?? [])],
    write: [cwd, ...(configured?.write ?? [])],
    network: true,
    env: configured?.env ?? [],
  };
}

function findStrace(
  server: string,
  hostEnv: LearnOptions<unknown>["hostEnv"],
  platform: NodeJS.Platform,
): string {
  if (platform !== "linux") throw learnUnavailable({ server, reason: "platform", platform });
  const found = findCommand("strace", hostEnv.PATH, "/");
  if (found === undefined) throw learnUnavailable({ server, reason: "strace" });
  return found;
}

/** Runs the server traced, exercises it, and proposes its grant (see the file's comment). */
export async function learnSandbox<R>(options: LearnOptions<R>): Promise<LearnResult<R>> {
  const { definition, hostEnv, cwd } = options;
  const server = definition.name;
  const platform = options.platform ?? process.platform;
  const strace = findStrace(server, hostEnv, platform);
  const home = hostEnv.HOME || homedir();
  const policy = broadPolicy(definition.sandbox, cwd, home);
  const spec = { command: definition.command, args: definition.args, env: {}, cwd: definition.cwd };
  const input = { server, configured: definition.env, hostEnv, platform };
  const narrow = sandboxPlanOf(spec, { ...input, policy: definition.sandbox ?? noGrants }).plan;
  const broad = sandboxPlanOf(spec, { ...input, policy }).plan;
  const folder = mkdtempSync(join(tmpdir(), "mcp-bridge-learn-"));
  try {
    const file = join(folder, "trace");
    const tracer: SandboxTracer = {
      command: [strace, "-f", "-qq", "-xx", "-s", "512", "-e", "trace=file,network", "-o", file, "--"],
      folder,
    };
    // Limits are left out: learning measures what the server reaches, not what it costs.
    const traced = { ...definition, sandbox: policy, limits: undefined };
    const created = await createTransport(traced, "stdio", { hostEnv, tracer });
    let exercised: R;
    try {
      exercised = await options.exercise(created.transport);
    } finally {
      await created.transport.close();
    }
    const { text, truncated } = readBounded(file);
    const learned = proposeGrant(parseTrace(text), broad, narrow);
    return { learned, sandbox: sandboxBlock(definition.sandbox, learned), exercised, truncated };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const noGrants: SandboxPolicy = { read: [], write: [], network: false, env: [] };

/** The trace's first MAX_TRACE_BYTES; a missing file (the server never started) reads as empty. */
function readBounded(file: string): { text: string; truncated: boolean } {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return { text: "", truncated: false };
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, MAX_TRACE_BYTES));
    let length = 0;
    for (let got = 1; got > 0 && length < buffer.length; length += got)
      got = readSync(fd, buffer, length, buffer.length - length, length);
    // strace writes ASCII only (`-xx`: every byte of a string as \xNN).
    return { text: buffer.subarray(0, length).toString("latin1"), truncated: size > MAX_TRACE_BYTES };
  } finally {
    closeSync(fd);
  }
}
