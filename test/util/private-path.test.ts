import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolListFiles } from "../../src/bridge/tool-lists/tool-list-files.js";
import { userCacheDir } from "../../src/util/cache-dir.js";
import { silentLogger } from "../../src/util/logger.js";
import {
  ensurePrivateDir,
  replaceFileAtomic,
  userDirIn,
  writeFileExclusive,
} from "../../src/util/private-path.js";
import { secondUser } from "../helpers/second-user.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-private-path-");
const modeOf = (path: string) => statSync(path).mode & 0o7777;
const other = secondUser();
const unix = process.platform !== "win32";

/** A folder the second user can reach (mkdtemp makes 0700 ones). */
function reachable(): string {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  return dir;
}

describe.skipIf(!unix)("ensurePrivateDir", () => {
  it("creates a missing folder (and parents) 0700", () => {
    const dir = join(tempDir(), "a", "b");
    expect(ensurePrivateDir(dir, { what: "test" })).toBe(dir);
    expect(modeOf(dir)).toBe(0o700);
  });

  it("uses an existing folder of ours as it is: never chmod-s it", () => {
    const dir = join(tempDir(), "mine");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    ensurePrivateDir(dir, { what: "test" });
    expect(modeOf(dir)).toBe(0o755);
  });

  it("refuses a link, a group- or world-writable folder, and leaves each as it was", () => {
    const root = tempDir();
    const target = join(root, "target");
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(root, "link"));
    expect(() => ensurePrivateDir(join(root, "link"), { what: "test" })).toThrow(
      expect.objectContaining({ code: "UNSAFE_PATH" }),
    );
    const shared = join(root, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o2775);
    // A team's group (not the user's own group: a umask-002 user's folders are 0775 and theirs).
    chownSync(shared, process.getuid?.() ?? 0, (process.getgid?.() ?? 0) === 1 ? 2 : 1);
    expect(() => ensurePrivateDir(shared, { what: "test" })).toThrow(/lets others write/);
    expect(modeOf(shared)).toBe(0o2775);
    expect(() => ensurePrivateDir(target, { what: "test", strict: false })).not.toThrow();
    const own = join(root, "own-group");
    mkdirSync(own);
    chmodSync(own, 0o775);
    expect(() => ensurePrivateDir(own, { what: "test" })).not.toThrow();
    expect(() => ensurePrivateDir(own, { what: "test", strict: true })).toThrow(/lets others in/);
  });

  it.skipIf(typeof other === "string")(
    "refuses a folder another user created at the path we would use",
    () => {
      if (typeof other === "string") return;
      const root = reachable();
      const planted = join(root, "planted");
      mkdirSync(planted, { mode: 0o700 });
      chownSync(planted, other.uid, other.gid);
      expect(() => ensurePrivateDir(planted, { what: "result overflow folder" })).toThrow(
        new RegExp(`owned by uid ${other.uid}`),
      );
      expect(lstatSync(planted).uid).toBe(other.uid);
      expect(modeOf(planted)).toBe(0o700);
    },
  );
});

describe.skipIf(!unix)("a shared folder gets a per-user subfolder and is left as it is", () => {
  it("1777 (like /tmp) and setgid 2775 team folders: userDirIn names mcp-bridge-<uid> inside", () => {
    for (const mode of [0o1777, 0o2775, 0o777]) {
      const shared = join(tempDir(), "shared");
      mkdirSync(shared);
      chmodSync(shared, mode);
      const mine = ensurePrivateDir(userDirIn(shared), { what: "test" });
      expect(mine).toBe(join(shared, `mcp-bridge-${process.getuid?.()}`));
      expect(modeOf(mine) & 0o777).toBe(0o700);
      expect(modeOf(shared)).toBe(mode);
    }
  });

  it("MCP_BRIDGE_CACHE_DIR naming a 1777 folder: the catalog cache writes in a subfolder and never chmods the folder", () => {
    const shared = join(tempDir(), "cache");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const dir = userCacheDir({ MCP_BRIDGE_CACHE_DIR: shared }) as string;
    expect(dir).toBe(join(shared, `mcp-bridge-${process.getuid?.()}`));
    // The catalog cache given the shared folder itself (a host's cacheDir option) does the same.
    const cache = new ToolListFiles(shared, silentLogger);
    cache.write(
      { name: "s", transport: "stdio", command: "x", args: [] } as never,
      { tools: [{ name: "t", inputSchema: { type: "object" } }] } as never,
      {},
    );
    expect(modeOf(shared)).toBe(0o1777);
    expect(readdirSync(shared)).toEqual([`mcp-bridge-${process.getuid?.()}`]);
    expect(readdirSync(dir).length).toBe(1);
  });
});

describe.skipIf(!unix)("replaceFileAtomic and writeFileExclusive", () => {
  it("writes through a symlinked file: the link stays, the real file keeps its mode, owner and group", () => {
    const root = reachable();
    const real = join(root, "dotfiles", "mcp.json");
    mkdirSync(join(root, "dotfiles"));
    writeFileSync(real, "old");
    chmodSync(real, 0o640);
    const owner = typeof other === "string" ? undefined : other;
    if (owner) chownSync(real, owner.uid, owner.gid);
    const link = join(root, "mcp.json");
    symlinkSync(real, link);
    expect(replaceFileAtomic(link, "new")).toBe(real);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link, "utf8")).toBe("new");
    expect(modeOf(real)).toBe(0o640);
    if (owner) {
      expect(statSync(real).uid).toBe(owner.uid);
      expect(statSync(real).gid).toBe(owner.gid);
    }
    // No temporary file is left beside it.
    expect(readdirSync(join(root, "dotfiles"))).toEqual(["mcp.json"]);
  });

  it("refuses a dangling link, and a link at all for private files", () => {
    const root = tempDir();
    symlinkSync(join(root, "nowhere"), join(root, "dangling"));
    expect(() => replaceFileAtomic(join(root, "dangling"), "x")).toThrow(/link to nothing/);
    expect(existsSync(join(root, "nowhere"))).toBe(false);
    writeFileSync(join(root, "victim"), "keep");
    symlinkSync(join(root, "victim"), join(root, "token"));
    expect(() => replaceFileAtomic(join(root, "token"), "secret", { private: true })).toThrow(
      expect.objectContaining({ code: "UNSAFE_PATH" }),
    );
    expect(readFileSync(join(root, "victim"), "utf8")).toBe("keep");
  });

  it("a new file gets the given mode; writeFileExclusive never writes through a planted link", () => {
    const root = tempDir();
    replaceFileAtomic(join(root, "fresh"), "x", { mode: 0o600 });
    expect(modeOf(join(root, "fresh"))).toBe(0o600);
    writeFileSync(join(root, "victim"), "keep");
    symlinkSync(join(root, "victim"), join(root, "planted"));
    expect(() => writeFileExclusive(join(root, "planted"), "secret")).toThrow(/EEXIST/);
    expect(readFileSync(join(root, "victim"), "utf8")).toBe("keep");
  });
});
