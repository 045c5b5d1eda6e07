import type { ServerStatus } from "../../connection/status.js";
import { defineCommand } from "../command.js";
import { type CommandContext, openBridge } from "../context.js";
import { table, writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

/**
 * `mcp-bridge status`: start every enabled server, one row each, plus a row in state `invalid` for each
 * entry the config could not load; exit 1 when any failed or is invalid.
 */
async function runStatus(context: CommandContext): Promise<number> {
  const bridge = await openBridge(context);
  try {
    const servers = bridge.servers();
    // The tools the LLM sees (after include/exclude and other filters), as `tools` counts them; the
    // connection's own count includes the filtered-out ones.
    const exposed = (name: string) => bridge.tools({ server: name }).length;
    if (context.global.json) {
      writeJson(context.io, {
        servers: servers.map((s) => ({
          name: s.name,
          transport: s.transport,
          state: s.state,
          tools: s.state === "connected" ? exposed(s.name) : 0,
          protocolVersion: s.protocolVersion ?? null,
          serverInfo: s.serverInfo ?? null,
          startMs: s.connectMs ?? null,
          error: s.lastError ? { code: s.lastError.code, message: s.lastError.message } : null,
          ...(context.global.verbose ? { stderr: s.stderrTail, skippedTools: s.skippedTools ?? [] } : {}),
        })),
      });
    } else {
      context.io.stdout.write(`${render(context, servers, exposed)}\n`);
    }
    return servers.some((s) => s.state === "failed" || s.state === "invalid") ? 1 : 0;
  } finally {
    await bridge.close();
  }
}

function render(
  context: CommandContext,
  servers: readonly ServerStatus[],
  exposed: (server: string) => number,
): string {
  const { style } = context;
  if (servers.length === 0) return "No servers configured.";
  const stateText = (state: ServerStatus["state"]) =>
    state === "connected"
      ? style.green(state)
      : state === "failed" || state === "invalid"
        ? style.red(state)
        : style.dim(state);
  const rows = servers.map((s) => [
    s.name,
    s.state === "invalid" ? "-" : s.transport,
    stateText(s.state),
    s.state === "connected" ? String(exposed(s.name)) : "-",
    s.protocolVersion ?? "-",
    s.connectMs === undefined ? "-" : String(s.connectMs),
    terminalText(s.lastError?.message ?? ""),
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
      if (s.state !== "failed" || s.stderrTail.length === 0) continue;
      lines.push("", style.bold(`stderr of ${s.name} (last ${s.stderrTail.length} lines):`));
      lines.push(...s.stderrTail.map((line) => `  ${terminalText(line)}`));
    }
  }
  const connected = servers.filter((s) => s.state === "connected");
  const tools = connected.reduce((sum, s) => sum + exposed(s.name), 0);
  lines.push(
    "",
    style.dim(
      `${connected.length}/${servers.filter((s) => s.state !== "disabled").length} servers connected, ${tools} tools`,
    ),
  );
  return lines.join("\n");
}

export const statusCommand = defineCommand({
  name: "status",
  summary: "start every enabled server and show its state (exit 1 if any failed)",
  flags: {},
  positionals: { usage: "", min: 0, max: 0 },
  examples: ["status", "status --json", "status --verbose"],
  run: runStatus,
});
