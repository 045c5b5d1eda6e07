import {
  chmodSync,
  chownSync,
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
import { removeServer } from "../../src/config/edit.js";
import { loadConfig } from "../../src/config/load.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { secondUser } from "../helpers/second-user.js";

const other = secondUser();
const unix = process.platform !== "win32";

const serversOf = (file: string) =>
  Object.keys((JSON.parse(readFileSync(file, "utf8")) as { mcpServers: object }).mcpServers).sort();

describe("add / remove under concurrency and hostile folders (built CLI)", () => {
  it("12 concurrent `add`s on one file keep all 12 servers, and each says Added", async () => {
    const home = emptyHome();
    const file = join(home, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: {} }));
    const names = Array.from({ length: 12 }, (_, i) => `s${i}`);
    const runs = await Promise.all(
      names.map((name) =>
        runCli(["add", name, "-c", file, "--", "node", "x.js"], {
          cwd: home,
          env: cliEnv(home),
          timeoutMs: 100_000,
        }),
      ),
    );
    for (const run of runs) {
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Added /);
    }
    expect(serversOf(file)).toEqual([...names].sort());
    // Neither lock files nor checked copies are left behind.
    // No lock or edit file is left behind (Node 22+ keeps its compile cache in the home's .cache).
    expect(readdirSync(home).filter((name) => name !== ".cache")).toEqual(["mcp.json"]);
  }, 120_000);

  it.skipIf(!unix)(
    "a symlinked config (dotfiles) stays a link; the real file keeps its mode, owner and group",
    async () => {
      const home = emptyHome();
      const real = join(home, "dotfiles", "mcp.json");
      mkdirSync(join(home, "dotfiles"));
      writeFileSync(real, JSON.stringify({ mcpServers: { a: { command: "node" } } }, null, 2));
      chmodSync(real, 0o640);
      if (typeof other !== "string") chownSync(real, other.uid, other.gid);
      const before = statSync(real);
      const link = join(home, "mcp.json");
      symlinkSync(real, link);
      const added = await runCli(["add", "b", "-c", link, "--", "node", "b.js"], {
        cwd: home,
        env: cliEnv(home),
      });
      expect(added.code).toBe(0);
      const removed = await runCli(["remove", "a", "-c", link], { cwd: home, env: cliEnv(home) });
      expect(removed.code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(serversOf(real)).toEqual(["b"]);
      const after = statSync(real);
      expect(after.mode & 0o7777).toBe(0o640);
      expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
      expect(readdirSync(join(home, "dotfiles"))).toEqual(["mcp.json"]);
    },
  );

  it.skipIf(typeof other === "string")(
    "links planted by another user at the old edit file names in a folder others can write are never followed",
    async () => {
      if (typeof other === "string") return;
      const home = emptyHome();
      chmodSync(home, 0o755);
      const shared = join(home, "shared");
      mkdirSync(shared);
      chmodSync(shared, 0o777);
      const config = join(shared, "mcp.json");
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { a: { command: "node", env: { TOKEN: "s3cret" } } } }),
        {
          mode: 0o600,
        },
      );
      // The attacker's file, and links to it at `.<pid>.mcp-bridge-edit.json` for the pids to come.
      const victim = join(shared, "victim");
      other.run("sh", ["-c", `echo mine > ${victim}; chmod 666 ${victim}`]);
      const last = Number(readFileSync("/proc/loadavg", "utf8").trim().split("/").at(-1)?.split(" ").at(-1));
      other.run(process.execPath, [
        "-e",
        `const fs = require("node:fs");
         for (let pid = ${last + 1}; pid < ${last + 4000}; pid++)
           fs.symlinkSync(${JSON.stringify(victim)}, ${JSON.stringify(shared)} + "/." + pid + ".mcp-bridge-edit.json");`,
      ]);
      const run = await runCli(["add", "b", "-c", config, "--", "node", "b.js"], {
        cwd: home,
        env: cliEnv(home),
      });
      expect(run.code).toBe(0);
      expect(readFileSync(victim, "utf8")).toBe("mine\n");
      const stat = lstatSync(config);
      expect(stat.isFile()).toBe(true);
      expect(stat.uid).toBe(process.getuid?.());
      expect(stat.mode & 0o777).toBe(0o600);
      expect(serversOf(config)).toEqual(["a", "b"]);
    },
    60_000,
  );
});

describe("TOML remove of a [[mcp.servers]] entry", () => {
  const TWO = `[[mcp.servers]]
name = "first"
command = "node"

[mcp.servers.env]
FIRST_KEY = "1"

[[mcp.servers]]
name = "second"
command = "node"

[mcp.servers.env]
SECRET = "s3cret"
`;

  async function load(text: string) {
    const file = join(emptyHome(), "mcp.toml");
    writeFileSync(file, text);
    const config = await loadConfig({ path: file, env: {} });
    return Object.fromEntries(config.servers.map((s) => [s.name, (s as { env?: unknown }).env]));
  }

  it("removing the last entry takes its [mcp.servers.env]: its secret does not pass to the entry above", async () => {
    const edited = removeServer(TWO, "toml", "second") as string;
    expect(edited).not.toContain("s3cret");
    expect(await load(edited)).toEqual({ first: { FIRST_KEY: "1" } });
  });

  it("removing the first entry takes its own sub-table and keeps the next entry whole", async () => {
    const edited = removeServer(TWO, "toml", "first") as string;
    expect(edited).not.toContain("FIRST_KEY");
    expect(await load(edited)).toEqual({ second: { SECRET: "s3cret" } });
  });

  it("in the [[mcp.servers]] form, [mcp.servers.env] is an entry's sub-table, never a server named env", () => {
    expect(removeServer(TWO, "toml", "env")).toBeUndefined();
    const named = `[[mcp.servers]]
name = "a"
command = "node"

[mcp.servers.env]
name = "b"
`;
    expect(removeServer(named, "toml", "b")).toBeUndefined();
  });
});
