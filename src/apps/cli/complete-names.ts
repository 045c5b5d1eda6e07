import { ToolListFiles, toolListCacheDir } from "../../bridge/tool-lists/tool-list-files.js";
import { silentLogger } from "../../util/logger.js";
import type { CliIO } from "./cli-io.js";
import { createContext } from "./command-context.js";
import { loadCliConfig } from "./config-choice.js";
import type { Flags, ParsedArguments } from "./parse-arguments.js";
import { parseCommandArguments } from "./parse-arguments.js";

/**
 * `mcp-bridge __complete servers|tools [-c FILE]`: the names the shell completion offers, one a line.
 * Never starts a server (a TAB must answer at once): server names come from the config, tool names
 * (as `server.tool`, what `call` takes) from the catalog cache of each server's last live list.
 * Hidden from help; prints nothing on failure.
 */
export async function printCompletionNames(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    const parsed = parseCommandArguments(argv, "__complete", {}, { usage: "servers|tools", min: 1, max: 1 });
    const quiet = { ...parsed, global: { ...parsed.global, quiet: true } } as ParsedArguments<Flags> & {
      options: Record<string, never>;
    };
    const context = createContext(io, quiet);
    const config = await loadCliConfig(context, { consent: false });
    const servers = config.servers.filter((server) => server.enabled);
    if (parsed.positionals[0] === "servers") {
      io.stdout.write(servers.map((server) => `${server.name}\n`).join(""));
      return 0;
    }
    const dir = toolListCacheDir(io.env);
    if (!dir) return 0;
    const cache = new ToolListFiles(dir, silentLogger);
    const names = servers.flatMap((server) =>
      (cache.read(server)?.tools ?? []).map((tool) => `${server.name}.${tool.name}`),
    );
    io.stdout.write(names.map((name) => `${name}\n`).join(""));
    return 0;
  } catch {
    return 1;
  }
}
