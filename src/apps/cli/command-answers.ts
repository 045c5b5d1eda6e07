import type { ServerInfo } from "../../connection/server-status.js";
import { ErrorCode, isMcpBridgeError } from "../../errors/error-classes.js";
import { plainText } from "../../util/plain-text.js";
import { withoutStderrHint } from "../../util/stderr-hint.js";
import { errorText } from "../../util/text-of.js";
import type { Envelope } from "../daemon/protocol.js";
import type { CliIO } from "./cli-io.js";
import type { CommandContext } from "./command-context.js";
import type { Asked } from "./command-requests.js";
import { shorten, table, writeJson } from "./output.js";
import { terminalText } from "./terminal.js";
import { renderTools } from "./tools-view.js";

/**
 * How the bridge commands print an answer (from the `--json` document the in-process path or the
 * daemon made), so both paths print the same. Loads nothing of the bridge.
 */

/** A call's progress on stderr: messages always; bare counters only on a terminal, where they are live feedback. */
export function progressPrinter(
  context: CommandContext,
): (progress: { progress: number; total?: number; message?: string }) => void {
  return (progress) => {
    const amount =
      progress.total === undefined ? `${progress.progress}` : `${progress.progress}/${progress.total}`;
    if (progress.message)
      context.io.stderr.write(`${context.errStyle.dim(`… ${amount}`)} ${plainText(progress.message, 500)}\n`);
    else if (context.io.stderr.isTTY) context.io.stderr.write(`${context.errStyle.dim(`… ${amount}`)}\n`);
  };
}

interface CallDoc {
  name: string;
  isError: boolean;
  text?: string;
  error?: { code: string; message: string };
}

function renderCall(context: CommandContext, envelope: Envelope): number {
  const doc = envelope.document as CallDoc;
  const { io, errStyle } = context;
  if (context.global.json) writeJson(io, doc);
  else if (doc.error && envelope.exitCode === 130) io.stderr.write(`${terminalText(doc.error.message)}\n`);
  else if (doc.error)
    io.stderr.write(`${errStyle.red("error:")} ${terminalText(serverText(context, doc.error.message))}\n`);
  else if (doc.isError) {
    const text = io.stderr.isTTY ? terminalText(doc.text ?? "") : (doc.text ?? "");
    io.stderr.write(`${errStyle.red("tool error:")} ${text}\n`);
  } else {
    // A terminal gets the result without control characters; a pipe or file gets it byte for byte.
    const text = io.stdout.isTTY ? terminalText(doc.text ?? "") : (doc.text ?? "");
    io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }
  return envelope.exitCode;
}

export interface StatusRow {
  name: string;
  transport: string;
  sandboxed: boolean;
  state: string;
  /** Running, stopped after its idle timeout, or never started (statusDocument's activityOf). */
  activity?: "running" | "idle" | "never started" | null;
  tools: number;
  protocolVersion: string | null;
  serverInfo: ServerInfo | null;
  startMs: number | null;
  error: { code: string; message: string } | null;
  stderr?: string[];
  skippedTools?: { tool: string; reason: string }[];
}

export function renderStatus(context: CommandContext, servers: readonly StatusRow[]): string {
  const { style } = context;
  if (servers.length === 0) return "No servers configured.";
  const stateText = (state: string) =>
    state === "connected"
      ? style.green(state)
      : state === "failed" || state === "invalid"
        ? style.red(state)
        : style.dim(state);
  const rows = servers.map((s) => [
    s.name,
    s.state === "invalid" ? "-" : s.sandboxed ? `${s.transport} (sandboxed)` : s.transport,
    stateText(s.activity === "never started" ? "never started" : s.state),
    s.state === "connected" || s.tools > 0 ? String(s.tools) : "-",
    s.protocolVersion ?? "-",
    s.startMs === null ? "-" : String(s.startMs),
    terminalText(serverText(context, s.error?.message ?? "")),
  ]);
  const lines = [
    table(["SERVER", "TRANSPORT", "STATE", "TOOLS", "PROTOCOL", "START MS", "ERROR"], rows, style),
  ];
  if (context.global.verbose) {
    for (const s of servers) {
      if (!s.skippedTools?.length) continue;
      lines.push("", style.bold(`tools of ${s.name} not exported:`));
      lines.push(...s.skippedTools.map((t) => `  ${terminalText(t.tool)}: ${terminalText(t.reason)}`));
    }
    for (const s of servers) {
      const tail = s.stderr ?? [];
      if (s.state !== "failed" || tail.length === 0) continue;
      lines.push("", style.bold(`stderr of ${s.name} (last ${tail.length} lines):`));
      lines.push(...tail.map((line) => `  ${terminalText(line)}`));
    }
  }
  const connected = servers.filter((s) => s.state === "connected");
  const tools = connected.reduce((sum, s) => sum + s.tools, 0);
  lines.push(
    "",
    style.dim(
      `${connected.length}/${servers.filter((s) => s.state !== "disabled").length} servers connected, ${tools} tools`,
    ),
  );
  return lines.join("\n");
}

interface Resource {
  uri: string;
  server: string;
  name: string;
  title?: string;
  mimeType?: string;
  description?: string;
}

function renderResources(
  context: CommandContext,
  doc: { resources: Resource[]; templates: (Resource & { uriTemplate: string })[] },
): void {
  const rows = [
    ...doc.resources.map((r) => [
      plainText(r.uri, 200),
      plainText(r.server, 100),
      plainText(r.title ?? r.name, 100),
      plainText(r.mimeType ?? "", 60),
      shorten(plainText(r.description ?? ""), 50),
    ]),
    ...doc.templates.map((t) => [
      plainText(t.uriTemplate, 200),
      plainText(t.server, 100),
      plainText(t.title ?? t.name, 100),
      plainText(t.mimeType ?? "", 60),
      shorten(plainText(`(template) ${t.description ?? ""}`), 50),
    ]),
  ];
  context.io.stdout.write(
    rows.length === 0
      ? "No resources.\n"
      : `${table(["URI", "SERVER", "NAME", "MIME TYPE", "DESCRIPTION"], rows, context.style)}\n`,
  );
}

interface PromptDoc {
  name: string;
  server: string;
  prompt: string;
  title?: string;
  description?: string;
  arguments: { name: string; required?: boolean }[];
}

function renderPrompts(context: CommandContext, prompts: readonly PromptDoc[]): void {
  const rows = prompts.map((p) => [
    p.name,
    plainText(p.server, 100),
    plainText(p.prompt, 100),
    p.arguments.map((a) => `${plainText(a.name, 60)}${a.required ? "" : "?"}`).join(", "),
    shorten(plainText(p.description ?? p.title ?? ""), 50),
  ]);
  context.io.stdout.write(
    prompts.length === 0
      ? "No prompts.\n"
      : `${table(["NAME", "SERVER", "PROMPT", "ARGUMENTS", "DESCRIPTION"], rows, context.style)}\n`,
  );
}

/** Prints an operation's answer as the command does; returns the exit code. */
export function renderAnswer(context: CommandContext, asked: Asked, envelope: Envelope): number {
  const { io } = context;
  const json = context.global.json;
  switch (asked.operation) {
    case "call":
      return renderCall(context, envelope);
    case "tools":
      renderTools(context, asked.body.format, envelope);
      break;
    case "status": {
      const doc = envelope.document as { servers: StatusRow[] };
      if (json) writeJson(io, doc);
      else io.stdout.write(`${renderStatus(context, doc.servers)}\n`);
      break;
    }
    case "resources":
      if (json) writeJson(io, envelope.document);
      else renderResources(context, envelope.document as Parameters<typeof renderResources>[1]);
      break;
    case "prompts":
      if (json) writeJson(io, envelope.document);
      else renderPrompts(context, (envelope.document as { prompts: PromptDoc[] }).prompts);
      break;
    case "read": {
      const doc = envelope.document as { text: string };
      if (json) writeJson(io, doc);
      else {
        const text = io.stdout.isTTY ? plainText(doc.text, Number.POSITIVE_INFINITY) : doc.text;
        io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
      }
      break;
    }
    case "prompt": {
      const doc = envelope.document as { messages: { role: string; text: string }[] };
      if (json) writeJson(io, doc);
      else {
        const tty = io.stdout.isTTY === true;
        const out = doc.messages.map((message) => {
          const text = tty ? plainText(message.text, Number.POSITIVE_INFINITY) : message.text;
          return `${context.style.bold(`${message.role}:`)}\n${text}\n`;
        });
        io.stdout.write(out.length === 0 ? "No messages.\n" : `${out.join("\n")}`);
      }
      break;
    }
  }
  for (const warning of envelope.warnings) context.logger.warn(warning);
  return envelope.exitCode;
}

/** A failure message as shown on a terminal: a server's own stderr lines only with --verbose. */
function serverText(context: CommandContext, message: string): string {
  return context.global.verbose ? message : withoutStderrHint(message);
}

/** A command that failed: `error: ...` on stderr (or the `--json` error document); exit 2 for usage and config errors. */
export function reportError(io: CliIO, json: boolean, error: unknown, verbose = false): number {
  const code = isMcpBridgeError(error) ? error.code : "INTERNAL";
  const message = json || verbose ? errorText(error) : withoutStderrHint(errorText(error));
  if (json) writeJson(io, { error: { code, message } });
  else io.stderr.write(`error: ${terminalText(message)}\n`);
  const usage =
    code === ErrorCode.Usage ||
    code === ErrorCode.ConfigNotFound ||
    code === ErrorCode.ConfigParse ||
    code === ErrorCode.ConfigInvalid ||
    code === ErrorCode.ProjectNotTrusted;
  return usage ? 2 : 1;
}
