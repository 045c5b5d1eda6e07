import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../../src/index.js";
import { sandboxWithheld } from "../../../src/transport/sandbox/withheld.js";
import { tempDirs } from "../../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-sandbox-withheld-");
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

const strict = { read: [], write: [], network: false, env: [] };

describe("what a sandbox withheld, read from a failed server's stderr", () => {
  it("the network: npm's, Python's and Node's words, with the host when they name it", () => {
    const npm = [
      "npm error code EAI_AGAIN",
      "npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
      "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log",
    ];
    expect(sandboxWithheld(npm, strict, "npx")).toEqual({
      kind: "network",
      host: "registry.npmjs.org",
      listed: false,
    });
    // With a host list, the hint is to list the host (and to use the proxy).
    expect(sandboxWithheld(npm, { ...strict, hosts: ["github.com"] }, "npx")).toMatchObject({ listed: true });
    const python = ["urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>"];
    expect(sandboxWithheld(python, strict, "python3")).toEqual({
      kind: "network",
      host: undefined,
      listed: false,
    });
    // With the network allowed, a failed lookup is not the sandbox's doing.
    expect(sandboxWithheld(npm, { ...strict, network: true }, "node")).toBeUndefined();
  });

  it("a path it could not read or write, unless a grant of that kind shows it", () => {
    const node = ["Error: ENOENT: no such file or directory, open '/srv/data/config.json'"];
    expect(sandboxWithheld(node, strict, "node")).toEqual({
      kind: "read",
      path: "/srv/data/config.json",
      errno: "ENOENT",
    });
    expect(sandboxWithheld(node, { ...strict, read: ["/srv/data"] }, "node")).toBeUndefined();
    const python = ["PermissionError: [Errno 13] Permission denied: '/home/u/notes/a.txt'"];
    expect(sandboxWithheld(python, strict, "python")).toMatchObject({ kind: "read", errno: "EACCES" });
    const readOnly = ["OSError: [Errno 30] Read-only file system: '/data/out/x'"];
    expect(sandboxWithheld(readOnly, { ...strict, read: ["/data"] }, "python")).toEqual({
      kind: "write",
      path: "/data/out/x",
      errno: "EROFS",
    });
    const loader = [
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/opt/app/lib.js' imported from /opt/app/x.js",
    ];
    expect(sandboxWithheld(loader, strict, "node")).toMatchObject({ kind: "read", path: "/opt/app/lib.js" });
    expect(sandboxWithheld(["ENOENT: open '/proc/1/status'"], strict, "node")).toBeUndefined();
  });

  it("a package runner without network that said nothing (it retries for a minute): the network", () => {
    expect(sandboxWithheld([], strict, "/usr/bin/npx")).toEqual({ kind: "runner", runner: "npx" });
    expect(sandboxWithheld([], strict, "node")).toBeUndefined();
    expect(sandboxWithheld(["some unrelated failure"], { ...strict, network: true }, "uvx")).toBeUndefined();
  });
});

describe.skipIf(skip !== undefined)(
  "a sandboxed server that fails to start says what the sandbox withheld",
  () => {
    it("a file it tried to read, and a name lookup it tried to make, with the grant to add", async () => {
      const folder = tempDir();
      const file = join(folder, "settings.json");
      writeFileSync(file, "{}");
      const reads = `require("fs").readFileSync(${JSON.stringify(file)})`;
      const lookup =
        'require("dns").lookup("registry.npmjs.org", (e) => { console.error(String(e)); process.exit(1); })';
      await using bridge = await startBridge({
        servers: {
          reads: { command: process.execPath, args: ["-e", reads], sandbox: true, startupTimeout: 30_000 },
          lookup: { command: process.execPath, args: ["-e", lookup], sandbox: true, startupTimeout: 30_000 },
        },
      });
      const state = (name: string) => bridge.servers().find((server) => server.name === name);
      expect(state("reads")?.lastError?.message).toContain(
        `Its sandbox does not show ${file} (ENOENT): if the server needs it, add it or its folder to "read"`,
      );
      expect(state("lookup")?.lastError?.message).toContain(
        'Its sandbox has no network, and it failed to reach registry.npmjs.org: if it needs the network, set "network": true',
      );
    }, 90_000);
  },
);
