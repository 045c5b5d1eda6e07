import { serverNotInConfig, serverToolsUnavailable } from "../../errors/cli-errors.js";
import { didYouMean } from "../../util/suggest.js";
import { openBridge } from "./bridge-commands.js";
import type { CommandContext } from "./command-context.js";
import { writeJson } from "./output.js";
import { terminalText } from "./terminal.js";
import { outputWidth, ownDescription, signatureOf } from "./tools-view.js";

/**
 * `mcp-bridge list SERVER`, as `mcporter list SERVER`: one server started alone, its tools as
 * signatures (`add(a: number, b?: number)`) under the names the server gives them (what `call
 * server.tool` takes), each with its description on the next line.
 */
export async function listServerTools(
  context: CommandContext,
  server: string,
  configured: readonly string[],
): Promise<number> {
  if (!configured.includes(server)) throw serverNotInConfig({ server, near: didYouMean(server, configured) });
  const bridge = await openBridge(context, { only: [server] });
  try {
    const status = bridge.server(server);
    if (status?.state !== "connected") {
      const reason = status?.lastError?.message ?? `it is ${status?.state ?? "not running"}`;
      throw serverToolsUnavailable({ server, reason });
    }
    const tools = bridge.tools({ server }).map((tool) => ({
      name: tool.name,
      tool: tool.tool,
      signature: `${tool.tool}(${signatureOf(tool.inputSchema)})`,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
    if (context.global.json) {
      writeJson(context.io, { server, tools });
      return 0;
    }
    const { style } = context;
    const width = outputWidth(context) ?? Number.POSITIVE_INFINITY;
    const lines = [
      style.bold(`${terminalText(server)}: ${tools.length} tool${tools.length === 1 ? "" : "s"}`),
      "",
    ];
    for (const tool of tools) {
      lines.push(`  ${terminalText(tool.signature)}`);
      const own = ownDescription({ server, description: tool.description });
      const text = terminalText(own).replace(/\s+/g, " ").trim();
      if (text)
        lines.push(
          style.dim(`      ${text.length + 6 > width ? `${text.slice(0, Math.max(width - 7, 10))}…` : text}`),
        );
    }
    if (tools.length > 0)
      lines.push(
        "",
        style.dim(
          `Call one: mcp-bridge call ${terminalText(server)}.${terminalText(tools[0]?.tool ?? "")} key=value`,
        ),
      );
    context.io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  } finally {
    await bridge.close();
  }
}
