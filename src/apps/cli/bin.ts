#!/usr/bin/env node
import module from "node:module";
import { join } from "node:path";
import { userCacheDir } from "../../util/cache-dir.js";

// Node 22.1+ can keep the code it compiles for the modules it loads in a folder, so that later starts
// of the CLI skip compiling them again: about an eighth of the CLI's start-up CPU. Node 20 has no such
// cache (the call is absent there). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
// It is set up before anything else is loaded, hence the dynamic import below.
const cacheDir = userCacheDir(process.env);
const { enableCompileCache } = module as { enableCompileCache?: (directory?: string) => unknown };
if (cacheDir !== undefined) enableCompileCache?.(join(cacheDir, "compile"));
await import("./process-entry.js");
