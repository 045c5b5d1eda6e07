import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  parseCachedToolList,
  ToolListFiles,
  toolListCacheDir,
  toolListKey,
} from "../../src/bridge/tool-lists/tool-list-files.js";
import { CATALOG_CACHE } from "../../src/config/defaults.js";
import type { ServerDefinition } from "../../src/config/model.js";
import { normalizeServers } from "../../src/config/normalize.js";
import type { Logger } from "../../src/util/logger.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-catalog-"));
  dirs.push(dir);
  return dir;
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string) => lines.push(message);
  return { lines, debug: log, info: log, warn: log, error: log };
}

function definition(raw: Record<string, unknown>): ServerDefinition {
  const entry = Object.fromEntries(
    Object.entries({ command: "node", args: ["server.js"], ...raw }).filter(
      ([, value]) => value !== undefined,
    ),
  );
  const { servers } = normalizeServers([["s", entry]], { env: {}, homeDir: homedir(), format: "object" });
  if (!servers[0]) throw new Error("the test definition did not normalize");
  return servers[0];
}

const tools: Tool[] = [
  { name: "alpha", inputSchema: { type: "object" } },
  { name: "beta", description: "second", inputSchema: { type: "object" } },
];

describe("catalog cache file", () => {
  it("reads back what it wrote, for the same definition only", () => {
    const dir = tempDir();
    const cache = new ToolListFiles(dir, recordingLogger());
    const base = definition({});
    cache.write(base, { tools }, { protocolVersion: "2025-06-18", serverInfo: { name: "x", version: "1" } });
    expect(new ToolListFiles(dir, recordingLogger()).read(base)).toMatchObject({
      tools,
      protocolVersion: "2025-06-18",
      serverInfo: { name: "x", version: "1" },
    });
    // Any change of the definition is another key: args, env, and so on.
    expect(cache.read(definition({ args: ["other.js"] }))).toBeUndefined();
    expect(cache.read(definition({ env: { MODE: "b" } }))).toBeUndefined();
    expect(toolListKey(definition({ env: { A: "1", B: "2" } }))).toBe(
      toolListKey(definition({ env: { B: "2", A: "1" } })),
    );
  });

  it("keeps no secret of the definition in the file, and writes it 0600", () => {
    const dir = tempDir();
    const cache = new ToolListFiles(dir, recordingLogger());
    const secret = definition({
      env: { API_TOKEN: "sk-live-very-secret-4711" },
      args: ["--key=hunter2-arg"],
    });
    cache.write(secret, { tools }, {});
    const [file] = readdirSync(dir);
    const path = join(dir, file as string);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("sk-live-very-secret-4711");
    expect(text).not.toContain("hunter2-arg");
    expect(text).not.toContain("API_TOKEN");
    if (process.platform !== "win32") {
      expect(lstatSync(path).mode & 0o777).toBe(0o600);
      expect(lstatSync(dir).mode & 0o077).toBe(0);
    }
  });

  it("ignores a damaged, foreign, oversized or linked file with a debug line, and overwrites it", () => {
    const dir = tempDir();
    const logger = recordingLogger();
    const base = definition({});
    const file = new ToolListFiles(dir, logger).fileOf(base);
    const damaged = [
      "{not json",
      "[]",
      JSON.stringify({
        format: CATALOG_CACHE.format + 1,
        key: toolListKey(base),
        savedAt: 1,
        expiresAt: 2e13,
        tools,
      }),
      JSON.stringify({
        format: CATALOG_CACHE.format,
        key: "0".repeat(64),
        savedAt: 1,
        expiresAt: 2e13,
        tools,
      }),
      JSON.stringify({
        format: CATALOG_CACHE.format,
        key: toolListKey(base),
        savedAt: 1,
        expiresAt: 2e13,
        tools: [1],
      }),
      JSON.stringify({ format: CATALOG_CACHE.format, key: toolListKey(base), tools }),
    ];
    for (const text of damaged) {
      writeFileSync(file, text, { mode: 0o600 });
      const cache = new ToolListFiles(dir, logger);
      expect(cache.read(base)).toBeUndefined();
      cache.write(base, { tools }, {});
      expect(new ToolListFiles(dir, logger).read(base)?.tools).toEqual(tools);
    }
    expect(logger.lines.filter((line) => line.includes("ignored")).length).toBe(damaged.length);

    const small = new ToolListFiles(dir, logger, { maxFileBytes: 64 });
    expect(small.read(base)).toBeUndefined();
    expect(logger.lines.at(-1)).toMatch(/too large/);

    if (process.platform !== "win32") {
      const target = join(dir, "elsewhere.json");
      writeFileSync(target, readFileSync(file));
      rmSync(file);
      symlinkSync(target, file);
      expect(new ToolListFiles(dir, logger).read(base)).toBeUndefined();
    }
  });

  it("honours the server's ttlMs: stale after it, at once for 0; without one the cache's own limit", () => {
    const dir = tempDir();
    let now = 1_000_000;
    const cache = new ToolListFiles(dir, recordingLogger(), { now: () => now });
    const base = definition({});
    cache.write(base, { tools, ttlMs: 60_000 }, {});
    now += 59_000;
    expect(cache.read(base)?.tools).toEqual(tools);
    now += 2_000;
    expect(cache.read(base)).toBeUndefined();

    cache.write(base, { tools, ttlMs: 0 }, {});
    expect(cache.read(base)).toBeUndefined();

    cache.write(base, { tools }, {});
    now += CATALOG_CACHE.maxAgeMs - 1;
    expect(cache.read(base)?.tools).toEqual(tools);
    now += 2;
    expect(cache.read(base)).toBeUndefined();
  });

  it("does not keep a private list of a server whose OAuth account is not part of its definition", () => {
    const dir = tempDir();
    const cache = new ToolListFiles(dir, recordingLogger());
    const remote = definition({
      command: undefined,
      args: undefined,
      type: "http",
      url: "https://example.com/mcp",
      oauth: { clientId: "c" },
    });
    cache.write(remote, { tools, cacheScope: "private" }, {});
    expect(readdirSync(dir)).toEqual([]);
    cache.write(remote, { tools, cacheScope: "public" }, {});
    expect(cache.read(remote)?.tools).toEqual(tools);
  });

  it("a clock set back before the save time makes an entry stale", () => {
    const base = definition({});
    const text = JSON.stringify({
      format: CATALOG_CACHE.format,
      key: toolListKey(base),
      savedAt: 5000,
      expiresAt: 9000,
      tools,
    });
    expect(parseCachedToolList(text, toolListKey(base), 4000)).toBe("stale");
    expect(parseCachedToolList(text, toolListKey(base), 6000)).toMatchObject({ tools });
  });

  it("finds the user's cache folder per platform, and none without one in the environment", () => {
    expect(toolListCacheDir({ MCP_BRIDGE_CACHE_DIR: "/x", HOME: "/h" }, "linux")).toBe("/x");
    expect(toolListCacheDir({ XDG_CACHE_HOME: "/c", HOME: "/h" }, "linux")).toBe(join("/c", "mcp-bridge"));
    expect(toolListCacheDir({ HOME: "/h" }, "linux")).toBe(join("/h", ".cache", "mcp-bridge"));
    expect(toolListCacheDir({ HOME: "/h" }, "darwin")).toBe(join("/h", "Library", "Caches", "mcp-bridge"));
    expect(toolListCacheDir({ LOCALAPPDATA: "C:\\L" }, "win32")).toBe(join("C:\\L", "mcp-bridge", "Cache"));
    expect(toolListCacheDir({}, "linux")).toBeUndefined();
  });

  it("property: any file text is either a usable entry or a reason, never an exception", () => {
    const key = toolListKey(definition({}));
    const text = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          format: fc.oneof(fc.constant(CATALOG_CACHE.format), fc.anything()),
          key: fc.oneof(fc.constant(key), fc.string()),
          savedAt: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.anything()),
          expiresAt: fc.oneof(fc.integer({ min: 0, max: 4000 }), fc.anything()),
          tools: fc.oneof(fc.array(fc.dictionary(fc.string(), fc.jsonValue())), fc.anything()),
          serverInfo: fc.anything(),
          protocolVersion: fc.anything(),
        })
        .map((value) => JSON.stringify(value) ?? ""),
    );
    fc.assert(
      fc.property(text, (value) => {
        const entry = parseCachedToolList(value, key, 1000);
        if (typeof entry === "string") return;
        expect(Array.isArray(entry.tools)).toBe(true);
        expect(entry.expiresAt).toBeGreaterThan(1000);
        expect(entry.savedAt).toBeLessThanOrEqual(1000);
      }),
      { numRuns: 300 },
    );
  });
});
