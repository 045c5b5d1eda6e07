import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ErrorCode, isMcpBridgeError } from "../../src/errors/index.js";
import { lazyImport, lazyPeer } from "../../src/util/lazy-import.js";

describe("a part of mcp-bridge loaded on first use", () => {
  it("loads once, and a failed load is MODULE_LOAD_FAILED naming the part; the next call tries again", async () => {
    let loads = 0;
    let fail = true;
    const load = lazyImport("the test part", async () => {
      loads++;
      if (fail) return import(pathToFileURL(join(tmpdir(), "mcp-bridge-no-such-module.js")).href);
      return { value: 42 };
    });
    const error = await load().catch((caught: unknown) => caught);
    expect(isMcpBridgeError(error)).toBe(true);
    expect(error).toMatchObject({ code: ErrorCode.ModuleLoadFailed });
    expect((error as Error).message).toContain("the test part");
    expect((error as Error).message).toContain("reinstall mcp-bridge");
    expect((error as Error).cause).toBeInstanceOf(Error);
    fail = false;
    expect(await load()).toEqual({ value: 42 });
    expect(await load()).toEqual({ value: 42 });
    expect(loads).toBe(2);
  });

  it("startBridge from an installation missing the runtime rejects with MODULE_LOAD_FAILED, the import itself works", () => {
    const dist = resolve("dist/src");
    if (!existsSync(join(dist, "index.js")))
      throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json`");
    // A copy of the built library with the runtime's file gone, as a broken install would have it.
    const root = mkdtempSync(join(tmpdir(), "mcp-bridge-broken-install-"));
    try {
      cpSync(dist, join(root, "src"), { recursive: true });
      rmSync(join(root, "src", "bridge", "bridge.js"));
      const entry = pathToFileURL(join(root, "src", "index.js")).href;
      const script = `const lib = await import(${JSON.stringify(entry)});
try { await lib.startBridge({ servers: {} }); console.log("started"); }
catch (error) { console.log(JSON.stringify({ code: error.code, isOurs: lib.isMcpBridgeError(error), message: error.message })); }`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout.trim()) as { code: string; isOurs: boolean; message: string };
      expect(report).toMatchObject({ code: "MODULE_LOAD_FAILED", isOurs: true });
      expect(report.message).toContain("the bridge runtime");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("an optional peer that is not installed is MODULE_LOAD_FAILED naming the package to install", async () => {
    const load = lazyPeer(
      "the test feature",
      "some-peer",
      () => import(pathToFileURL(join(tmpdir(), "mcp-bridge-no-such-peer.js")).href),
    );
    const error = await load().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: ErrorCode.ModuleLoadFailed });
    expect((error as Error).message).toContain("the test feature");
    expect((error as Error).message).toContain("npm install some-peer");
  });

  it("token counting and the Redis store from an installation without gpt-tokenizer and redis say what to install", () => {
    const dist = resolve("dist/src");
    if (!existsSync(join(dist, "index.js")))
      throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json`");
    // The built library beside every installed package but the two optional peers (and redis's own).
    const root = mkdtempSync(join(tmpdir(), "mcp-bridge-no-peers-"));
    try {
      cpSync(dist, join(root, "src"), { recursive: true });
      writeFileSync(join(root, "package.json"), '{"type":"module"}');
      const modules = join(root, "node_modules");
      mkdirSync(modules);
      const left = new Set(["gpt-tokenizer", "redis", "@redis"]);
      for (const name of readdirSync("node_modules")) {
        if (!left.has(name)) symlinkSync(resolve("node_modules", name), join(modules, name));
      }
      const url = (path: string) => JSON.stringify(pathToFileURL(join(root, "src", path)).href);
      const script = `const { definitionTokens } = await import(${url("adapters/index.js")});
const { redisClient } = await import(${url("util/lazy-modules.js")});
const report = (error) => ({ code: error.code, message: error.message });
const out = [];
for (const run of [() => definitionTokens([]), () => redisClient()])
  out.push(await run().then(() => ({ code: "loaded" }), report));
console.log(JSON.stringify(out));`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const [tokens, redis] = JSON.parse(run.stdout.trim()) as { code: string; message: string }[];
      expect(tokens).toMatchObject({ code: "MODULE_LOAD_FAILED" });
      expect(tokens?.message).toContain("npm install gpt-tokenizer");
      expect(redis).toMatchObject({ code: "MODULE_LOAD_FAILED" });
      expect(redis?.message).toContain("npm install redis");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
