import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../../src/index.js";
import { hostFacts } from "../../../src/transport/sandbox/host-facts.js";
import { isInferable } from "../../../src/transport/sandbox/sandbox-plan.js";
import { fixturePath, stdioEntry } from "../../fixtures/servers/index.js";
import { tempDirs } from "../../helpers/wait.js";

const tempDir = tempDirs("mcp-bridge-sandbox-grants-");
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux" ? "sandbox tests need Linux" : bwrap ? undefined : "bwrap is not installed";
if (skip) console.log(`skipped: ${skip}`);

const policy = { read: [], write: [], network: false, env: [] };
const factsFor = (args: string[], home: string, cwd: string) =>
  hostFacts({
    policy,
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? "" },
    cwd,
    hostCwd: cwd,
    home,
  }).runtime.map((entry) => entry.path);

/** A home with an SSH key and config, and a script in a folder with no project marker. */
function layout() {
  const root = tempDir();
  const home = join(root, "home");
  const loose = join(root, "loose");
  for (const folder of [join(home, ".ssh"), loose]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(home, ".ssh", "config"), "Host example");
  writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
  writeFileSync(join(loose, "neighbour.txt"), "not granted");
  return { root, home, loose };
}

describe("what a sandbox shows of the files a server's arguments name", () => {
  it("a data file alone (never its folder); the script without a marker alone; /proc skipped", () => {
    const { home, loose } = layout();
    const script = join(loose, "server.mjs");
    writeFileSync(script, "");
    const config = join(home, ".ssh", "config");
    const shown = factsFor([script, "/etc/hostname", config, "/proc/self/status"], home, loose);
    expect(shown).toEqual(expect.arrayContaining([script, "/etc/hostname", config]));
    for (const folder of [loose, "/etc", join(home, ".ssh"), home]) expect(shown).not.toContain(folder);
    expect(shown.some((path) => path.startsWith("/proc"))).toBe(false);
  });

  it("the first script argument brings its project where a marker is found; a later script is data", () => {
    const { root, home } = layout();
    const project = join(root, "project");
    mkdirSync(join(project, "dist"), { recursive: true });
    writeFileSync(join(project, "package.json"), "{}");
    writeFileSync(join(project, "dist", "index.js"), "");
    const other = join(root, "other");
    mkdirSync(other);
    writeFileSync(join(other, "package.json"), "{}");
    writeFileSync(join(other, "plugin.js"), "");
    const shown = factsFor([join(project, "dist", "index.js"), join(other, "plugin.js")], home, root);
    expect(shown).toEqual(expect.arrayContaining([project, join(project, "node_modules")]));
    expect(shown).toContain(join(other, "plugin.js"));
    expect(shown).not.toContain(other);
  });

  it("a marker in the home folder, a hidden folder of it or a system folder is not a project", () => {
    const { home } = layout();
    writeFileSync(join(home, ".ssh", "package.json"), "{}");
    writeFileSync(join(home, ".ssh", "run.js"), "");
    expect(factsFor([join(home, ".ssh", "run.js")], home, home)).not.toContain(join(home, ".ssh"));
    for (const folder of [
      "/",
      "/etc",
      "/etc/ssh",
      "/var/lib",
      "/usr",
      "/opt",
      "/tmp",
      home,
      join(home, ".config"),
    ])
      expect(isInferable(folder, home), folder).toBe(false);
    for (const folder of ["/opt/mcp/memory", join(home, "projects", "x"), join(home, ".nvm", "v22")])
      expect(isInferable(folder, home), folder).toBe(true);
  });
});

/**
 * Real bubblewrap: a server whose arguments name /etc/hostname, ~/.ssh/config and a /proc path starts,
 * reads exactly those files, and sees nothing else of their folders; a script in a folder without a
 * project marker does not show that folder.
 */
describe.skipIf(skip !== undefined)("a sandboxed server with files in its arguments", () => {
  let bridge: Bridge;
  let home: string;
  let loose: string;
  const text = async (tool: string, args: Record<string, unknown> = {}) =>
    (await bridge.call(tool, args)).text;

  beforeAll(async () => {
    ({ home, loose } = layout());
    // A script outside any project that runs the probe server (granted by a `read` of the repository).
    const probe = fixturePath("probe-server");
    writeFileSync(join(loose, "server.mjs"), `await import(${JSON.stringify(pathToFileURL(probe).href)});\n`);
    // The checkout (this file is test/transport/sandbox/): the probe may run bundled or as built.
    const repository = fileURLToPath(new URL("../../..", import.meta.url));
    const files = ["/etc/hostname", join(home, ".ssh", "config"), "/proc/self/status"];
    bridge = await startBridge({
      env: { ...process.env, HOME: home },
      servers: {
        named: stdioEntry("probe-server", { sandbox: true }, files),
        loose: {
          command: process.execPath,
          args: [join(loose, "server.mjs")],
          // The checkout's node_modules may be a link to a shared install.
          sandbox: { read: [repository, realpathSync(join(repository, "node_modules"))] },
        },
      },
    });
    for (const server of bridge.servers())
      expect(server, server.lastError?.message).toMatchObject({ state: "connected" });
  }, 90_000);

  afterAll(async () => {
    await bridge?.close();
  });

  it("shows a data file alone: /etc/hostname but not /etc/shadow; ~/.ssh/config but not the key", async () => {
    expect(await text("named/read_file", { path: "/etc/hostname" })).toBe(
      readFileSync("/etc/hostname", "utf8"),
    );
    expect(await text("named/read_file", { path: "/etc/shadow" })).toBe("ERROR ENOENT");
    expect(await text("named/read_file", { path: "/etc/machine-id" })).toBe("ERROR ENOENT");
    expect(await text("named/read_file", { path: join(home, ".ssh", "config") })).toBe("Host example");
    expect(await text("named/read_file", { path: join(home, ".ssh", "id_ed25519") })).toBe("ERROR ENOENT");
    // Read-only.
    expect(await text("named/write_file", { path: join(home, ".ssh", "config"), content: "x" })).toMatch(
      /^ERROR E(ROFS|ACCES|PERM)/,
    );
    expect(readFileSync(join(home, ".ssh", "config"), "utf8")).toBe("Host example");
  });

  it("a script in a folder without a project marker does not show its folder", async () => {
    expect(await text("loose/read_file", { path: join(loose, "neighbour.txt") })).toBe("ERROR ENOENT");
    expect(await text("loose/read_file", { path: join(loose, "server.mjs") })).toContain("await import");
  });
});
