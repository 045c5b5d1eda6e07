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

/**
 * @napi-rs/keyring is an optional peer: an installation without it still loads configs, and a
 * `${keyring:…}` there is a MODULE_LOAD_FAILED saying what to install (the entry is skipped with it).
 */
describe("without @napi-rs/keyring installed", () => {
  it("${keyring:…} skips the entry saying what to install; the encrypted file store still works", () => {
    const dist = resolve("dist/src");
    if (!existsSync(join(dist, "index.js")))
      throw new Error("dist/ is missing: run `npx tsc -p tsconfig.json`");
    const root = mkdtempSync(join(tmpdir(), "mcp-bridge-no-keyring-"));
    try {
      cpSync(dist, join(root, "src"), { recursive: true });
      writeFileSync(join(root, "package.json"), '{"type":"module"}');
      const modules = join(root, "node_modules");
      mkdirSync(join(modules, "@napi-rs"), { recursive: true });
      for (const name of readdirSync("node_modules")) {
        if (name !== "@napi-rs") symlinkSync(resolve("node_modules", name), join(modules, name));
      }
      for (const name of readdirSync("node_modules/@napi-rs")) {
        if (!name.startsWith("keyring"))
          symlinkSync(resolve("node_modules/@napi-rs", name), join(modules, "@napi-rs", name));
      }
      const config = join(root, "mcp.json");
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { s: { command: "x", env: { K: "${keyring:K}" } } } }),
      );
      const url = (path: string) => JSON.stringify(pathToFileURL(join(root, "src", path)).href);
      const script = `const { loadConfig } = await import(${url("index.js")});
const { openSecretStore } = await import(${url("util/secret-store.js")});
const config = await loadConfig({ path: ${JSON.stringify(config)}, env: {}, cwd: ${JSON.stringify(root)} });
const file = { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "p", XDG_CONFIG_HOME: ${JSON.stringify(root)} };
openSecretStore(file).set("K", "from-the-file-store");
const fromFile = await loadConfig({ path: ${JSON.stringify(config)}, env: file, cwd: ${JSON.stringify(root)} });
console.log(JSON.stringify({ skipped: config.skipped, env: fromFile.servers[0]?.env }));`;
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const { skipped, env } = JSON.parse(run.stdout.trim()) as {
        skipped: { kind: string; reason: string }[];
        env: Record<string, string>;
      };
      expect(skipped[0]?.kind).toBe("missing-secret");
      expect(skipped[0]?.reason).toContain("npm install @napi-rs/keyring");
      expect(env).toEqual({ K: "from-the-file-store" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 90_000);
});
