#!/usr/bin/env node
import module from "node:module";

// `mcp-bridge … | head`: a reader that leaves early is the end of the output, not a crash (Node ignores
// SIGPIPE, so the write fails with EPIPE instead, and unhandled that is an uncaught exception).
// `attach` keeps its own handling: its stdout is an MCP channel.
if (process.argv[2] !== "attach") {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  // Diagnostics nobody reads any more are dropped the same way.
  process.stderr.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

// Node 22.1+ can keep the code it compiles for the modules it loads in a folder, so that later starts
// of the CLI skip compiling them again: about an eighth of the CLI's start-up CPU. Node 20 has no such
// cache (the call is absent there, and nothing more is loaded for it). NODE_DISABLE_COMPILE_CACHE=1
// turns it off, as for any Node program. It is set up before anything else is loaded, hence the
// dynamic imports below; the folder is a private one of ours or none (compile-cache.ts).
const { enableCompileCache } = module as { enableCompileCache?: (directory?: string) => unknown };
if (enableCompileCache !== undefined && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const folder = (await import("./compile-cache.js")).compileCacheFolder(process.env);
  if (folder !== undefined) enableCompileCache(folder);
}
// `--version` and the overview help, asked alone, are answered here with only what they print: the
// package.json reader, or the commands' declarations and the help formatter (about a quarter of their
// start-up CPU was loading the argument parser, its errors and the CLI's runner). The answers are
// run-cli.ts's.
const [only, ...more] = process.argv.slice(2);
if (more.length === 0 && (only === "--version" || only === "-V")) {
  const { packageInfo } = await import("../../util/package-info.js");
  process.stdout.write(`${packageInfo().version}\n`);
} else if (
  more.length === 0 &&
  (only === undefined || only === "help" || only === "--help" || only === "-h")
) {
  const [{ DECLARED_COMMANDS }, { overviewHelp }] = await Promise.all([
    import("./declarations/declared-commands.js"),
    import("./help.js"),
  ]);
  process.stdout.write(overviewHelp(DECLARED_COMMANDS));
  // Without a command, the overview is a usage error (exit 2), as in run-cli.ts.
  process.exitCode = only === undefined ? 2 : 0;
} else {
  await import("./process-entry.js");
}
