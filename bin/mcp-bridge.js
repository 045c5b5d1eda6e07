#!/usr/bin/env node
// The `mcp-bridge` command (package.json "bin"). It lives outside dist/ so that a checkout that was never
// built says so at once: with the command inside dist/, `npx mcp-bridge` in a fresh clone found no command
// and silently installed and built the package itself, printing nothing for 12 to 45 seconds.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/src/apps/cli/bin.js", import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]$/, "");
  process.stderr.write(
    `mcp-bridge is not built yet: run \`npm run build\` in ${root} (it takes about half a minute), then try again.\n`,
  );
  process.exit(1);
}
await import(cli.href);
