import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * `overflow: "file"`: the whole text of a result that was over a limit goes to a file of its own
 * (private to the user: folder 0700, file 0600, created exclusively), and the model is told where,
 * so a host (or a file-reading tool) can get the rest without the result flooding the context.
 * Returns the line to add to the model's text, or undefined when the file could not be written
 * (the result is then only truncated, as without the option).
 */
export function writeOverflow(
  full: string,
  tool: { readonly server: string; readonly tool: string },
  dir = join(tmpdir(), `mcp-bridge-results-${process.getuid?.() ?? "user"}`),
): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const safe = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40) || "_";
    const file = join(
      dir,
      `${Date.now()}-${safe(tool.server)}-${safe(tool.tool)}-${randomBytes(4).toString("hex")}.txt`,
    );
    writeFileSync(file, full, { mode: 0o600, flag: "wx" });
    return `[The whole result (${full.length} characters) is in the file ${file}; read it in parts if you need more.]`;
  } catch {
    return undefined;
  }
}
