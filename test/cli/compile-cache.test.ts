import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compileCacheFolder } from "../../src/apps/cli/compile-cache.js";
import { secondUser } from "../helpers/second-user.js";

/**
 * Node writes the compiled code of every module the CLI loads into the compile cache folder and runs it
 * on the next start: the folder must be ours alone, never one another user made or pointed elsewhere.
 */
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-compile-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the compile cache folder", () => {
  it("is `compile` in the user cache folder, created private", () => {
    const home = tempDir();
    const folder = compileCacheFolder({ HOME: home });
    expect(folder).toBe(join(home, ".cache", "mcp-bridge", "compile"));
    expect(lstatSync(folder as string).mode & 0o077).toBe(0);
  });

  it("is none without a user cache folder (Node's default under the temporary folder is never used)", () => {
    expect(compileCacheFolder({})).toBeUndefined();
  });

  it("is none when another user planted a link where ours would be in a shared cache folder", () => {
    const other = secondUser();
    if (typeof other === "string" || process.platform !== "linux") {
      console.warn(`skipped: ${typeof other === "string" ? other : "needs Linux"}`);
      return;
    }
    const shared = tempDir();
    chmodSync(shared, 0o1777);
    const target = tempDir();
    chmodSync(target, 0o777);
    const uid = process.getuid?.() as number;
    // The attacker points the per-user folder we would use at a folder they read (and could fill).
    other.run("ln", ["-s", target, join(shared, `mcp-bridge-${uid}`)]);
    expect(compileCacheFolder({ HOME: tempDir(), MCP_BRIDGE_CACHE_DIR: shared })).toBeUndefined();
    expect(readdirSync(target)).toEqual([]);
  });

  it("is none when the compile folder is a link or writable by others", () => {
    const cache = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(cache, "compile"));
    expect(compileCacheFolder({ MCP_BRIDGE_CACHE_DIR: cache })).toBeUndefined();
    rmSync(join(cache, "compile"));
    mkdirSync(join(cache, "compile"));
    chmodSync(join(cache, "compile"), 0o777);
    expect(compileCacheFolder({ MCP_BRIDGE_CACHE_DIR: cache })).toBeUndefined();
  });
});
