import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIO } from "../../src/apps/cli/cli-io.js";
import { runCli as runCliInProcess } from "../../src/apps/cli/run-cli.js";
import { loadConfig } from "../../src/config/load.js";
import type { ProjectServerRequest } from "../../src/config/model.js";
import { isProjectFile } from "../../src/config/project.js";
import { definitionHash, describeRequest, TrustStore } from "../../src/config/trust.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

let home: string;
beforeEach(() => {
  home = emptyHome();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const HOST_SECRET = "host-SECRET-5e9d01";
/** A server that, if ever started, leaves a marker file behind: proof that the project's command ran. */
const markerServer = (marker: string) => ({
  command: process.execPath,
  args: ["-e", "require('node:fs').writeFileSync(process.argv[1], 'ran')", marker, "--token=${HOST_TOKEN}"],
  env: { API_TOKEN: "${HOST_TOKEN}" },
});
const writeJson = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value, null, 2));

describe("isProjectFile", () => {
  const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.config" };
  it("files in the working directory are project files; the user's own folders are not", () => {
    const cwd = "/home/u/src/repo";
    expect(isProjectFile(`${cwd}/mcp.json`, { cwd, env, home: env.HOME })).toBe(true);
    expect(isProjectFile(`${cwd}/.vscode/mcp.json`, { cwd, env, home: env.HOME })).toBe(true);
    expect(isProjectFile("/home/u/.config/mcp-bridge/mcp.json", { cwd, env, home: env.HOME })).toBe(false);
    expect(isProjectFile("/home/u/.claude.json", { cwd, env, home: env.HOME })).toBe(false);
    expect(isProjectFile("/etc/mcp.json", { cwd, env, home: env.HOME })).toBe(false);
  });

  it("with the home folder as working directory, user-level files stay user-level", () => {
    const cwd = "/home/u";
    expect(isProjectFile("/home/u/.config/mcp-bridge/mcp.json", { cwd, env, home: env.HOME })).toBe(false);
    expect(isProjectFile("/home/u/.cursor/mcp.json", { cwd, env, home: env.HOME })).toBe(false);
    expect(isProjectFile("/home/u/.claude.json", { cwd, env, home: env.HOME })).toBe(false);
    expect(isProjectFile("/home/u/.mcp.json", { cwd, env, home: env.HOME })).toBe(true);
  });
});

describe("loadConfig with a consent predicate", () => {
  it("is asked with the raw, unexpanded definition of each project server, and a refusal expands nothing", async () => {
    const raw = { command: "tool", args: ["--key=${HOST_TOKEN}", "${NOT_SET_ANYWHERE}"] };
    writeJson(join(home, "mcp.json"), { mcpServers: { project: raw } });
    const asked: ProjectServerRequest[] = [];
    const config = await loadConfig({
      cwd: home,
      env: { HOME: home, HOST_TOKEN: HOST_SECRET },
      admitProjectServer: (request) => {
        asked.push(request);
        return false;
      },
    });
    expect(asked).toEqual([{ file: join(home, "mcp.json"), name: "project", definition: raw }]);
    expect(config.servers).toEqual([]);
    expect(config.warnings.map((w) => w.kind)).toEqual(["untrusted"]);
    expect(JSON.stringify(config)).not.toContain(HOST_SECRET);
  });

  it("a user-level file, an explicit path and servers given in code are never asked about", async () => {
    const xdg = join(home, ".config");
    mkdirSync(join(xdg, "mcp-bridge"), { recursive: true });
    writeJson(join(xdg, "mcp-bridge", "mcp.json"), { mcpServers: { user: { command: "u" } } });
    writeJson(join(home, "explicit.json"), { mcpServers: { named: { command: "n" } } });
    const never = () => {
      throw new Error("asked");
    };
    const base = { cwd: home, env: { HOME: home, XDG_CONFIG_HOME: xdg }, admitProjectServer: never };
    expect((await loadConfig(base)).servers.map((s) => s.name)).toEqual(["user"]);
    expect((await loadConfig({ ...base, path: "explicit.json" })).servers.map((s) => s.name)).toEqual([
      "named",
    ]);
    expect((await loadConfig({ ...base, servers: { code: { command: "c" } } })).servers).toHaveLength(1);
  });

  it("servers imported from a project's .vscode/mcp.json are asked about too", async () => {
    const xdg = join(home, ".config");
    mkdirSync(join(xdg, "mcp-bridge"), { recursive: true });
    writeJson(join(xdg, "mcp-bridge", "mcp.json"), { mcpServers: {}, settings: { imports: ["vscode"] } });
    mkdirSync(join(home, "repo", ".vscode"), { recursive: true });
    writeJson(join(home, "repo", ".vscode", "mcp.json"), { servers: { vs: { command: "v" } } });
    const asked: string[] = [];
    const config = await loadConfig({
      cwd: join(home, "repo"),
      env: { HOME: home, XDG_CONFIG_HOME: xdg },
      admitProjectServer: (request) => {
        asked.push(`${request.file}#${request.name}`);
        return false;
      },
    });
    expect(asked).toEqual([`${join(home, "repo", ".vscode", "mcp.json")}#vs`]);
    expect(config.servers).toEqual([]);
  });

  it("the library default (no predicate) keeps loading ./mcp.json as before", async () => {
    writeJson(join(home, "mcp.json"), { mcpServers: { project: { command: "tool" } } });
    expect((await loadConfig({ cwd: home, env: { HOME: home } })).servers).toHaveLength(1);
  });

  it("the prompt shows the definition as written: ${VAR} unexpanded, env and header names, no literal secrets", () => {
    const text = describeRequest(
      {
        file: "/repo/.mcp.json",
        name: "web",
        definition: {
          url: "https://u:pw-literal@example.test/${TENANT}/mcp?api_key=key-literal&page=2",
          headers: { Authorization: "Bearer token-literal" },
          env: { SECRET_THING: "env-literal" },
        },
      },
      (t) => t,
    );
    expect(text).toContain("https://u:***@example.test/${TENANT}/mcp?api_key=***&page=2");
    expect(text).toContain("headers names: Authorization");
    expect(text).toContain("env names: SECRET_THING");
    expect(text).not.toMatch(/literal/);
  });

  it("the approval hash follows the exact definition, not its key order", () => {
    const a = definitionHash({ name: "s", definition: { command: "x", args: ["1"] } });
    expect(definitionHash({ name: "s", definition: { args: ["1"], command: "x" } })).toBe(a);
    expect(definitionHash({ name: "s", definition: { command: "x", args: ["2"] } })).not.toBe(a);
    expect(definitionHash({ name: "t", definition: { command: "x", args: ["1"] } })).not.toBe(a);
  });
});

describe.skipIf(process.platform === "win32")("the approvals file", () => {
  it("is written 0600, and one that is a symbolic link is neither believed nor written through", () => {
    const request = { file: join(home, "mcp.json"), name: "s", definition: { command: "x" } };
    const real = new TrustStore(join(home, "real.json"));
    real.approve([request]);
    expect(statSync(real.file).mode & 0o777).toBe(0o600);
    expect(real.isApproved(request)).toBe(true);
    const planted = join(home, "planted.json");
    symlinkSync(real.file, planted);
    const store = new TrustStore(planted);
    expect(store.isApproved(request)).toBe(false);
    expect(() => store.approve([{ ...request, name: "t" }])).toThrow(/symbolic link/);
  });
});

describe("the CLI asks before starting a project's servers", () => {
  it("without a terminal it refuses, runs nothing, shows the raw definition and says how to approve", async () => {
    const marker = join(home, "ran.txt");
    writeJson(join(home, ".mcp.json"), { mcpServers: { evil: markerServer(marker) } });
    const env = cliEnv(home, { HOST_TOKEN: HOST_SECRET });
    for (const args of [["tools"], ["status", "--json"], ["call", "evil/x"]]) {
      const run = await runCli(args, { cwd: home, env });
      expect(run.code, args.join(" ")).toBe(2);
      expect(existsSync(marker)).toBe(false);
      const output = run.stdout + run.stderr;
      expect(output).not.toContain(HOST_SECRET);
      if (args[0] === "tools") {
        expect(run.stderr).toContain("${HOST_TOKEN}");
        expect(run.stderr).toContain("env names: API_TOKEN");
        expect(run.stderr).toMatch(/mcp-bridge trust/);
        expect(run.stderr).toMatch(/--trust-project/);
        expect(run.stderr).toMatch(/MCP_BRIDGE_TRUST_PROJECT=1/);
      }
    }
  });

  it("no command reads the host variables an unapproved server refers to", async () => {
    writeJson(join(home, ".mcp.json"), { mcpServers: { evil: markerServer(join(home, "ran.txt")) } });
    for (const args of [["call", "evil/x"], ["call", "mcp_evil_x"], ["tools"], ["status"]]) {
      const read = new Set<string>();
      const env = new Proxy(
        { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), HOST_TOKEN: HOST_SECRET } as Record<
          string,
          string | undefined
        >,
        {
          get(target, key) {
            if (typeof key === "string") read.add(key);
            return target[key as string];
          },
        },
      );
      const sink = new PassThrough();
      sink.resume();
      const code = await runCliInProcess(args, { stdout: sink, stderr: sink, env, cwd: home });
      expect(code, args.join(" ")).toBe(2);
      expect([...read], args.join(" ")).not.toContain("HOST_TOKEN");
    }
  });

  it("--trust-project and MCP_BRIDGE_TRUST_PROJECT start them for one run without remembering", async () => {
    writeJson(join(home, "mcp.json"), { mcpServers: { calc: stdioEntry("normal") } });
    const env = cliEnv(home);
    const flagged = await runCli(["call", "calc/add", "a=2", "b=3", "--trust-project"], { cwd: home, env });
    expect(flagged.stdout.trim()).toBe("5");
    const ci = await runCli(["call", "calc/add", "a=2", "b=3"], {
      cwd: home,
      env: { ...env, MCP_BRIDGE_TRUST_PROJECT: "1" },
    });
    expect(ci.stdout.trim()).toBe("5");
    expect((await runCli(["tools"], { cwd: home, env })).code).toBe(2);
  });

  it("`mcp-bridge trust` remembers the approval (0600) until the definition changes", async () => {
    const file = join(home, "mcp.json");
    writeJson(file, { mcpServers: { calc: stdioEntry("normal") } });
    const env = cliEnv(home);
    const trust = await runCli(["trust"], { cwd: home, env });
    expect(trust.code).toBe(0);
    expect(trust.stdout).toContain("Approved");
    const store = join(home, ".config", "mcp-bridge", "trusted-projects.json");
    if (process.platform !== "win32") expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(readFileSync(store, "utf8")).toContain(file);
    const ok = await runCli(["call", "calc/add", "a=1", "b=1"], { cwd: home, env });
    expect(ok.stdout.trim()).toBe("2");

    writeJson(file, { mcpServers: { calc: stdioEntry("normal", {}, ["--changed"]) } });
    const changed = await runCli(["tools"], { cwd: home, env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("--changed");

    const revoke = await runCli(["trust", "revoke"], { cwd: home, env });
    expect(revoke.code).toBe(0);
    writeJson(file, { mcpServers: { calc: stdioEntry("normal") } });
    expect((await runCli(["tools"], { cwd: home, env })).code).toBe(2);
  });

  it("an explicit --config and the bundled examples are trusted as before", async () => {
    writeJson(join(home, "mcp.json"), { mcpServers: { calc: stdioEntry("normal") } });
    const env = cliEnv(home);
    const named = await runCli(["call", "calc/add", "a=1", "b=2", "-c", "mcp.json"], { cwd: home, env });
    expect(named.stdout.trim()).toBe("3");
    const empty = emptyHome();
    try {
      const bundled = await runCli(["call", "mcp_calculator_add", "a=1", "b=2"], { cwd: empty, env });
      expect(bundled.stdout.trim()).toBe("3");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("on a terminal the CLI asks and remembers the answer", () => {
  const terminal = (answer: string) => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    // Written but not ended: a terminal stays open, so a reader left attached would show.
    stdin.write(`${answer}\n`);
    let err = "";
    let out = "";
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const stdout = new PassThrough();
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const io: CliIO = {
      stdin,
      stdout,
      stderr,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), PATH: process.env.PATH, NO_COLOR: "1" },
      cwd: home,
    };
    return { io, stdin, output: () => ({ out, err }) };
  };

  it("'n' leaves the servers out; 'y' approves, starts them and is not asked again", async () => {
    writeJson(join(home, "mcp.json"), { mcpServers: { calc: stdioEntry("normal") } });
    const no = terminal("n");
    expect(await runCliInProcess(["tools", "--json"], no.io)).toBe(0);
    expect(no.output().err).toContain("Approve and start them?");
    expect(JSON.parse(no.output().out)).toEqual({ tools: [] });

    const yes = terminal("y");
    expect(await runCliInProcess(["call", "calc/add", "a=4", "b=4"], yes.io)).toBe(0);
    expect(yes.output().out.trim()).toBe("8");
    // The consent prompt let go of the terminal: nothing else (chat, an elicitation) competes with it.
    expect(yes.stdin.listenerCount("data")).toBe(0);

    const again = terminal("n");
    expect(await runCliInProcess(["call", "calc/add", "a=1", "b=4"], again.io)).toBe(0);
    expect(again.output().err).not.toContain("Approve");
    expect(again.output().out.trim()).toBe("5");
  }, 30_000);
});
