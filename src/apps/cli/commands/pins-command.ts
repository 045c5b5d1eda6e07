import type { PinReport } from "../../../bridge/api.js";
import { describeDrift } from "../../../bridge/pins/fingerprint.js";
import { definedOnly } from "../../../util/defined.js";
import { openBridge } from "../bridge-commands.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { pinsDeclaration } from "../declarations/config-commands.js";
import { writeJson } from "../output.js";
import { clean } from "../terminal-ask.js";
import { commandUsage } from "../usage-errors.js";

/**
 * `mcp-bridge pins list|diff|accept [SERVER]`: what each server's pinned tool definitions are, how
 * its current listing differs from them, and accepting that listing as the new pins. The servers are
 * started (only SERVER when given) so their current listing can be compared; a drift is shown here,
 * never blocked or asked about.
 */
async function runPins(context: CommandContext): Promise<number> {
  const [sub = "list", server] = context.positionals;
  if ((sub === "diff" || sub === "accept") && server === undefined) throw commandUsage(`pins ${sub} SERVER`);
  const logger = context.logger;
  const bridge = await openBridge(context, {
    only: server === undefined ? undefined : [server],
    // The CLI's own default (bridge-commands.ts), so each server's action is what other commands do;
    // nothing is asked here, and this command calls no tool, so what it would block does not matter.
    onDrift: "ask",
    confirmDrift: undefined,
    // The drift is this command's answer: the library's warning would say it twice.
    logger: {
      ...logger,
      warn: (message, fields) => {
        if (fields?.event !== "pins.drift") logger.warn(message, fields);
      },
    },
  });
  try {
    if (sub === "accept") {
      const report = await bridge.acceptPins(server as string);
      if (context.global.json) writeJson(context.io, { accepted: toJson(report) });
      else
        context.io.stdout.write(
          `Accepted the current tool definitions of "${clean(report.server)}" as its pins.\n`,
        );
      return 0;
    }
    const reports = bridge.pins(server);
    if (context.global.json) {
      writeJson(context.io, { servers: reports.map(toJson) });
    } else {
      const text = reports.map((report) => (sub === "diff" ? diffText(report) : listText(report))).join("\n");
      context.io.stdout.write(text.length > 0 ? `${text}\n` : "No servers.\n");
    }
    // `diff` exits 1 when something drifted, as `diff` does.
    return sub === "diff" && reports.some((report) => report.drift) ? 1 : 0;
  } finally {
    await bridge.close();
  }
}

function toJson(report: PinReport): Record<string, unknown> {
  return definedOnly({ ...report, lines: report.drift ? describeDrift(report.drift) : undefined });
}

function listText(report: PinReport): string {
  const counts = Object.entries(report.pinned)
    .map(([kind, count]) => `${count} ${kind}${count === 1 ? "" : "s"}`)
    .join(", ");
  const when =
    report.pinnedAt === undefined ? "not pinned yet" : `pinned ${new Date(report.pinnedAt).toISOString()}`;
  const drift = report.drift ? `; drifted (see \`mcp-bridge pins diff ${report.server}\`)` : "";
  return `${clean(report.server)}: ${counts || "nothing"} ${when}; ${DRIFT_EFFECT[report.onDrift]}${drift}`;
}

/** What a drift does in the CLI, by the server's `onDrift` (the action alone reads as a promise it is not). */
const DRIFT_EFFECT: Readonly<Record<PinReport["onDrift"], string>> = {
  ask: "a change is asked about on a terminal, blocked without one (onDrift ask)",
  warn: "a change is used with a warning (onDrift warn)",
  block: "a change is blocked until accepted (onDrift block)",
};

function diffText(report: PinReport): string {
  if (!report.drift) return `${clean(report.server)}: matches its pins.`;
  const lines = describeDrift(report.drift).map((line) => `  ${clean(line)}`);
  return `${clean(report.server)}:\n${lines.join("\n")}\nAccept with \`mcp-bridge pins accept ${report.server}\`.`;
}

export const pinsCommand = defineCommand({
  ...pinsDeclaration,
  run: runPins,
});
