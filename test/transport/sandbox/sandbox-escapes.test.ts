import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../../src/index.js";
import { stdioEntry } from "../../fixtures/servers/index.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

/**
 * A fixture server run sandboxed tries what a hostile server would: read the user's secrets, write
 * outside its grants, reach a local service, read the host's environment. Each is refused; what the
 * sandbox grants works.
 */
describe.skipIf(skip !== undefined)("a sandboxed stdio server", () => {
  let root: string;
  let home: string;
  let granted: string;
  let writable: string;
  let listener: Server;
  let port: number;
  let bridge: Bridge;
  const text = async (tool: string, args: Record<string, unknown> = {}) =>
    (await bridge.call(tool, args)).text;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "mcp-bridge-sandbox-"));
    home = join(root, "home");
    granted = join(root, "granted");
    writable = join(root, "writable");
    for (const folder of [home, join(home, ".ssh"), granted, writable])
      mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
    writeFileSync(join(root, "outside.txt"), "outside");
    writeFileSync(join(granted, "data.txt"), "granted data");
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
    const hostEnv = {
      ...process.env,
      HOME: home,
      PROBE_PASSED: "listed",
      PROBE_SECRET_TOKEN: "s3cr3t-value",
    };
    bridge = await startBridge({
      env: hostEnv,
      servers: {
        strict: stdioEntry("probe-server", {
          sandbox: { read: [granted], write: [writable], env: ["PROBE_PASSED"] },
          env: { OWN_VARIABLE: "own" },
        }),
        networked: stdioEntry("probe-server", { sandbox: { network: true } }),
        plain: stdioEntry("probe-server"),
      },
    });
    for (const server of bridge.servers())
      expect(server, server.lastError?.message).toMatchObject({ state: "connected" });
  }, 90_000);

  afterAll(async () => {
    await bridge?.close();
    await new Promise((resolve) => listener?.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  it("cannot read the user's home or a file outside its grants; can read a granted one", async () => {
    expect(await text("strict/read_file", { path: join(home, ".ssh", "id_ed25519") })).toBe("ERROR ENOENT");
    expect(await text("strict/read_file", { path: join(root, "outside.txt") })).toBe("ERROR ENOENT");
    expect(await text("strict/read_file", { path: "/etc/shadow" })).toMatch(/^ERROR /);
    expect(await text("strict/read_file", { path: join(granted, "data.txt") })).toBe("granted data");
    // The same server unsandboxed reads the key: the refusal above is the sandbox's doing.
    expect(await text("plain/read_file", { path: join(home, ".ssh", "id_ed25519") })).toBe("PRIVATE KEY");
  });

  it("cannot write outside its write grants, nor into a read grant; can write a write grant", async () => {
    expect(await text("strict/write_file", { path: join(granted, "planted.txt"), content: "x" })).toMatch(
      /^ERROR E(ROFS|ACCES|PERM)/,
    );
    expect(existsSync(join(granted, "planted.txt"))).toBe(false);
    // Home and /tmp are private and empty: a write there lands in the sandbox, never on the host.
    expect(await text("strict/write_file", { path: join(home, ".bashrc"), content: "evil" })).toBe("written");
    expect(existsSync(join(home, ".bashrc"))).toBe(false);
    await text("strict/write_file", { path: join(root, "planted.txt"), content: "x" });
    expect(existsSync(join(root, "planted.txt"))).toBe(false);
    // A system folder is read-only, even for a server run by root.
    expect(await text("strict/write_file", { path: "/usr/planted.txt", content: "x" })).toMatch(
      /^ERROR E(ROFS|ACCES|PERM)/,
    );
    expect(await text("strict/write_file", { path: join(writable, "out.txt"), content: "kept" })).toBe(
      "written",
    );
    expect(readFileSync(join(writable, "out.txt"), "utf8")).toBe("kept");
  });

  it("cannot open a connection to a local service with network off; can with network on", async () => {
    expect(await text("strict/connect", { host: "127.0.0.1", port })).toMatch(
      /^ERROR E(CONNREFUSED|NETUNREACH)/,
    );
    expect(await text("networked/connect", { host: "127.0.0.1", port })).toBe("connected");
  });

  it("sees only the base environment, the listed variables and its own env", async () => {
    const env = JSON.parse(await text("strict/env")) as Record<string, string>;
    expect(env.PROBE_PASSED).toBe("listed");
    expect(env.OWN_VARIABLE).toBe("own");
    expect(env.HOME).toBe(home);
    expect(env).not.toHaveProperty("PROBE_SECRET_TOKEN");
    expect(JSON.stringify(env)).not.toContain("s3cr3t-value");
    // PWD is set by bwrap itself when it enters the working directory; MCP_BRIDGE_TREE is the random
    // tag that marks the server's process tree (src/transport/tree-tag.ts), no secret of the host's.
    const allowed = [
      "MCP_BRIDGE_TREE",
      "PATH",
      "HOME",
      "USER",
      "LOGNAME",
      "SHELL",
      "TERM",
      "LANG",
      "LC_ALL",
      "TZ",
      "TMPDIR",
      "PWD",
    ];
    for (const name of Object.keys(env)) expect([...allowed, "PROBE_PASSED", "OWN_VARIABLE"]).toContain(name);
  });

  it("runs in its own pid namespace", async () => {
    expect(Number(await text("strict/pid"))).toBeLessThan(10);
  });
});
