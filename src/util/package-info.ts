import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
}

let cached: PackageInfo | undefined;

/**
 * This package's name and version from its package.json, read once. The file is found by walking up
 * from this module, which sits at a different depth when run from src/ (tests) than from dist/src/.
 */
export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Partial<PackageInfo>;
      if (pkg.name === "mcp-bridge" && typeof pkg.version === "string") {
        cached = { name: pkg.name, version: pkg.version };
        return cached;
      }
    } catch {
      // No (readable) package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  cached = { name: "mcp-bridge", version: "0.0.0" };
  return cached;
}
