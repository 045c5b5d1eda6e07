#!/usr/bin/env node
import module from "node:module";

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
await import("./process-entry.js");
