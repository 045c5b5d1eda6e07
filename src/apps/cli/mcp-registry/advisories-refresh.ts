import { lstatSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseAdvisories } from "../../../config/advisories.js";
import { advisoriesUnreadable, registryUnreachable } from "../../../errors/registry-errors.js";
import { boundedFetch } from "../../../transport/bounded-fetch.js";
import { replaceFileAtomic } from "../../../util/private-path.js";
import type { CommandContext } from "../command-context.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";
import { targetSettings } from "./registry-add.js";

/**
 * `mcp-bridge advisories refresh SOURCE`: replaces the advisories the `advisories` setting names with
 * SOURCE (a file, or an http(s) address the user gives), after checking it is OSV JSON. The only way
 * advisories change: nothing is fetched on its own. Into a folder, SOURCE is written under its own
 * file name, beside the others.
 */

const MAX_SOURCE_BYTES = 256 * 1024 * 1024;

async function readSource(source: string): Promise<string> {
  if (!/^https?:\/\//.test(source)) {
    try {
      return readFileSync(source, "utf8");
    } catch (error) {
      throw advisoriesUnreadable({ path: source, reason: (error as NodeJS.ErrnoException).code ?? "error" });
    }
  }
  const bounded = boundedFetch(fetch as never, { maxResponseBytes: MAX_SOURCE_BYTES, tooLargeCode: -32000 });
  let response: Response;
  let text: string;
  try {
    response = await bounded(source, { signal: AbortSignal.timeout(120_000) });
    text = await response.text();
  } catch (error) {
    throw registryUnreachable({ url: source, reason: (error as Error).message });
  }
  if (!response.ok) throw registryUnreachable({ url: source, reason: `HTTP ${response.status}` });
  return text;
}

export async function runAdvisoriesRefresh(context: CommandContext, file: string): Promise<number> {
  const [, source] = context.positionals as [string, string | undefined];
  const settings = await targetSettings(context, file);
  const target = settings.advisories;
  if (target === undefined || source === undefined)
    throw advisoriesUnreadable({
      path: target ?? "(none)",
      reason:
        target === undefined
          ? `no \`advisories\` setting in ${file}: set it to a file or folder first`
          : "give the SOURCE file or address",
    });
  const text = await readSource(source);
  let count: number;
  try {
    count = parseAdvisories(text).length;
  } catch {
    throw advisoriesUnreadable({ path: source, reason: "not OSV JSON" });
  }
  let folder = false;
  try {
    folder = lstatSync(target).isDirectory();
  } catch {
    // a file not there yet
  }
  const name =
    basename(new URL(source, "file:///").pathname).replace(/[^A-Za-z0-9._-]/g, "_") || "advisories";
  const destination = folder ? join(target, name.endsWith(".json") ? name : `${name}.json`) : target;
  replaceFileAtomic(destination, text, { mode: 0o644, what: "advisories" });
  if (context.global.json) writeJson(context.io, { file: destination, malware: count });
  else
    context.io.stdout.write(
      `Wrote ${terminalText(destination)}: ${count} malware advisor${count === 1 ? "y" : "ies"}\n`,
    );
  return 0;
}
