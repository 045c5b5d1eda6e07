// npm runs `prepare` after `npm install` in a clone and when installing from a Git URL
// (`npm install -g git+https://...`): there is no dist/ then, and the package would not run. Builds it
// only when it is missing, so an install of a built package (a packed tarball) does not build again.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

if (!existsSync("dist/src/index.js")) {
  const tsc = createRequire(`${process.cwd()}/package.json`).resolve("typescript/bin/tsc");
  process.stderr.write("mcp-bridge: building dist/ (tsc -p tsconfig.build.json)\n");
  const built = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });
  process.exitCode = built.status ?? 1;
}
