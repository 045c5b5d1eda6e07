import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { tempDirs } from "../helpers/wait.js";

const filesystemServer = resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const tempDir = tempDirs("mcp-bridge-roots-");

/** A config in its own folder X (as `~/.config/Claude`) naming a data folder Y in server-filesystem's args. */
function copiedConfig(roots?: string[]): { configFile: string; configDir: string; dataDir: string } {
  const configDir = realpathSync(tempDir());
  const dataDir = realpathSync(tempDir());
  writeFileSync(join(dataDir, "notes.txt"), "hello from the data folder");
  writeFileSync(join(configDir, "token.json"), "secret-ish");
  const configFile = join(configDir, "claude_desktop_config.json");
  const entry = { command: process.execPath, args: [filesystemServer, dataDir], ...(roots ? { roots } : {}) };
  writeFileSync(configFile, JSON.stringify({ mcpServers: { files: entry } }));
  return { configFile, configDir, dataDir };
}

/**
 * server-filesystem's allowed folders once they include `expected` (it asks for roots after the
 * handshake, so the answer may lag), else the last answer after a bounded wait.
 */
async function allowedOnce(bridge: Bridge, expected: string): Promise<string> {
  let allowed = "";
  for (let attempt = 0; attempt < 50 && !allowed.includes(expected); attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 100));
    allowed = (await bridge.call("files/list_allowed_directories", {})).text;
  }
  return allowed;
}

describe("roots", () => {
  it("a config copied from another host: server-filesystem reads the folder in its args, not the config's folder", async () => {
    const { configFile, configDir, dataDir } = copiedConfig();
    const home = tempDir();
    await using bridge = await startBridge({ config: configFile, env: { HOME: home }, catalogCache: false });
    expect(bridge.server("files")?.state).toBe("connected");
    // server-filesystem asks for roots once initialized; wait (bounded) until its answer is applied.
    const allowed = await allowedOnce(bridge, dataDir);
    expect(allowed).toContain(dataDir);
    expect(allowed).not.toContain(configDir);
    const read = await bridge.call("files/read_text_file", { path: join(dataDir, "notes.txt") });
    expect(read.isError).toBeFalsy();
    expect(read.text).toContain("hello from the data folder");
    await expect(
      bridge.call("files/read_text_file", { path: join(configDir, "token.json") }),
    ).rejects.toThrow(/outside allowed directories/);
  });

  it("configured roots still replace the args folders (the server's own rule)", async () => {
    const other = realpathSync(tempDir());
    mkdirSync(join(other, "inside"));
    const { configFile, dataDir } = copiedConfig([other]);
    await using bridge = await startBridge({
      config: configFile,
      env: { HOME: tempDir() },
      catalogCache: false,
    });
    const allowed = await allowedOnce(bridge, other);
    expect(allowed).toContain(other);
    expect(allowed).not.toContain(dataDir);
  });
});
