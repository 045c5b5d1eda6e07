import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Which modules a real Node process loads: node arguments that preload a recorder (ES modules through
 * a module-loading hook, CommonJS ones from `require.cache` at exit), and the list it wrote. No timing:
 * a test asserts on the set, so an eager import of something heavy fails it on any machine.
 */
export interface ModuleTrace {
  /** Put before the script: `node ...nodeArgs script args`. */
  readonly nodeArgs: readonly string[];
  /** Every module file loaded so far (file paths; node's built-ins left out). */
  loaded(): string[];
  dispose(): void;
}

export function moduleTrace(): ModuleTrace {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-modules-"));
  const out = join(dir, "loaded.txt");
  const hooks = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(out)}, url + "\\n");
  return next(url, context);
}`;
  const preload = `import { appendFileSync, writeFileSync } from "node:fs";
import { createRequire, register } from "node:module";
writeFileSync(${JSON.stringify(out)}, "");
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
const require = createRequire(process.cwd() + "/");
process.on("exit", () => {
  appendFileSync(${JSON.stringify(out)}, Object.keys(require.cache).map((file) => file + "\\n").join(""));
});`;
  return {
    nodeArgs: ["--import", `data:text/javascript,${encodeURIComponent(preload)}`],
    loaded: () => {
      const lines = readFileSync(out, "utf8").split("\n");
      const files = lines
        .filter((line) => line !== "" && !line.startsWith("node:"))
        .map((line) => (line.startsWith("file://") ? decodeURIComponent(new URL(line).pathname) : line));
      return [...new Set(files)];
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
