/**
 * Pinned tool definitions: a tool kept out because it changed (or appeared) since its server's tools
 * were pinned. The drift lines are server text already made plain and redacted by the caller.
 */
import { ToolChangedError } from "./error-classes.js";

export function toolChanged(fields: {
  server: string;
  tool: string;
  /** `changed` (its pinned definition differs) or `added` (no pin: new since the pins were taken). */
  change: "changed" | "added";
  drift: readonly string[];
}): ToolChangedError {
  const { server, tool, change, drift } = fields;
  const what =
    change === "added"
      ? `is new since server "${server}"'s tools were pinned`
      : `changed since server "${server}"'s tools were pinned`;
  return new ToolChangedError(
    `Tool "${tool}" ${what}, and this bridge blocks changed tools until they are accepted:\n${drift.join("\n")}\n` +
      `Review it with \`mcp-bridge pins diff ${server}\`, then accept it with \`mcp-bridge pins accept ${server}\`.`,
    { server, tool, drift },
  );
}
