import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { secretsOf } from "../../src/config/secrets.js";
import { openSecretStore } from "../../src/util/secret-store.js";
import {
  needsSecretService,
  secretServiceForThisProcess,
  secretServiceMissing,
} from "../helpers/secret-service.js";
import { tempDirs } from "../helpers/wait.js";

const tempDir = tempDirs("mcpb-keyring-");
const SECRET = "ghp_keyringSecretValue0123456789";

/**
 * `${keyring:NAME}` through a real Secret Service: a private D-Bus session with GNOME Keyring unlocked
 * on it, started for this file. The binding reads the bus address from this process's environment.
 */
describe.skipIf(secretServiceMissing !== undefined)(
  needsSecretService("the OS credential store (Secret Service)"),
  () => {
    secretServiceForThisProcess();

    it("stores, lists, reads and removes a secret", () => {
      const store = openSecretStore({});
      expect(store.kind).toBe("keyring");
      store.set("LIB_TOKEN", SECRET);
      expect(store.get("LIB_TOKEN")).toBe(SECRET);
      expect(store.names()).toContain("LIB_TOKEN");
      expect(store.remove("LIB_TOKEN")).toBe(true);
      expect(store.get("LIB_TOKEN")).toBeUndefined();
      expect(store.remove("LIB_TOKEN")).toBe(false);
    });

    it("resolves ${keyring:NAME} in every config dialect, and masks the value", async () => {
      openSecretStore({}).set("DIALECT_KEY", SECRET);
      const dialects: Record<string, string> = {
        "mcp.json": JSON.stringify({
          mcpServers: {
            s: {
              command: "run",
              args: ["--key=${keyring:DIALECT_KEY}"],
              env: { API_KEY: "${keyring:DIALECT_KEY}" },
            },
          },
        }),
        "vscode.json": JSON.stringify({
          servers: {
            s: {
              type: "http",
              url: "https://example.com/mcp",
              headers: { Authorization: "Bearer ${keyring:DIALECT_KEY}" },
            },
          },
        }),
        "codex.toml": '[mcp_servers.s]\ncommand = "run"\nenv = { API_KEY = "${keyring:DIALECT_KEY}" }\n',
        "mcp.toml": '[mcp.servers.s]\ncommand = "run"\nenv = { API_KEY = "${keyring:DIALECT_KEY}" }\n',
      };
      for (const [name, text] of Object.entries(dialects)) {
        const dir = tempDir();
        writeFileSync(join(dir, name), text);
        const config = await loadConfig({ cwd: dir, env: {}, homeDir: dir, path: join(dir, name) });
        const [server] = config.servers;
        expect(server, name).toBeDefined();
        if (!server) continue;
        const text2 = JSON.stringify(server);
        expect(text2, name).toContain(SECRET);
        expect(secretsOf(server), name).toContain(SECRET);
      }
    });

    it("resolves ${keyring:…} in an imported host's config (Cursor) too", async () => {
      const dir = tempDir();
      mkdirSync(join(dir, ".cursor"));
      writeFileSync(
        join(dir, ".cursor/mcp.json"),
        JSON.stringify({ mcpServers: { cur: { command: "x", env: { TOKEN: "${keyring:DIALECT_KEY}" } } } }),
      );
      writeFileSync(
        join(dir, "mcp.json"),
        // Approved as the user's own: imported servers are otherwise held in quarantine, unresolved.
        JSON.stringify({ settings: { imports: ["cursor"], quarantine: "off" }, mcpServers: {} }),
      );
      const config = await loadConfig({ cwd: dir, env: {}, homeDir: dir, path: join(dir, "mcp.json") });
      expect(config.servers.find((s) => s.name === "cur")).toMatchObject({ env: { TOKEN: SECRET } });
    });

    it("skips an entry whose secret is missing, naming the secret and the command that stores it", async () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, "mcp.json"),
        JSON.stringify({ mcpServers: { gone: { command: "x", env: { K: "${keyring:NEVER_STORED}" } } } }),
      );
      const config = await loadConfig({ cwd: dir, env: {}, homeDir: dir, path: join(dir, "mcp.json") });
      expect(config.servers).toEqual([]);
      expect(config.skipped[0]).toMatchObject({ name: "gone", kind: "missing-secret" });
      expect(config.skipped[0]?.reason).toContain('"NEVER_STORED"');
      expect(config.skipped[0]?.reason).toContain("mcp-bridge secrets set NEVER_STORED");
    });
  },
);

describe("without a reachable OS credential store", () => {
  it("skips the entry with an error that names the encrypted file store, never falling back silently", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "mcp.json"),
      JSON.stringify({ mcpServers: { s: { command: "x", env: { K: "${keyring:ANY}" } } } }),
    );
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    // An address where no bus listens: the Secret Service cannot be reached.
    process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir, "no-bus")}`;
    try {
      const config = await loadConfig({ cwd: dir, env: {}, homeDir: dir, path: join(dir, "mcp.json") });
      expect(config.servers).toEqual([]);
      expect(config.skipped[0]?.kind).toBe("missing-secret");
      expect(config.skipped[0]?.reason).toMatch(/MCP_BRIDGE_SECRET_STORE=file/);
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
