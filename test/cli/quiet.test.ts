import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/bridge/bridge.js";
import type { LogFields } from "../../src/util/logger.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";

/** Quiet by default: one line per problem, no server stderr and no config notice without -v. */

const { home, env, config } = cliHome({ calc: stdioEntry("normal"), broken: stdioEntry("exits-at-start") });
/** The stderr lines that mention a server. */
const linesAbout = (text: string, server: string) =>
  text.split("\n").filter((line) => line.includes(`"${server}"`)).length;

describe("the CLI is quiet unless something is wrong", () => {
  it("tools: the failed server is reported once, without its own stderr; -v shows the stderr", async () => {
    const quiet = await runCliInProcess(["tools", "-c", config], { cwd: home, env });
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).toContain("mcp_calc_add");
    expect(linesAbout(quiet.stderr, "broken")).toBe(1);
    expect(quiet.stderr).not.toContain("fatal: cannot start");
    const verbose = await runCliInProcess(["tools", "-c", config, "-v"], { cwd: home, env });
    expect(verbose.stderr).toContain("fatal: cannot start");
  });

  it("status: the table says it; nothing on stderr", async () => {
    const run = await runCliInProcess(["status", "-c", config], { cwd: home, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/broken\s+stdio\s+failed/);
    expect(run.stdout).not.toContain("fatal: cannot start");
    expect(run.stderr).toBe("");
  });

  it("call: a failed owner is one error line", async () => {
    const run = await runCliInProcess(["call", "-c", config, "broken/anything"], { cwd: home, env });
    expect(run.code).not.toBe(0);
    expect(linesAbout(run.stderr, "broken")).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toContain("fatal: cannot start");
  });

  it("the user's own config is not announced on every command; -v names it", async () => {
    const userHome = join(home, "user");
    const configHome = join(userHome, ".config");
    mkdirSync(join(configHome, "mcp-bridge"), { recursive: true });
    writeFileSync(
      join(configHome, "mcp-bridge", "mcp.json"),
      JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }),
    );
    const userEnv = { ...env, HOME: userHome, XDG_CONFIG_HOME: configHome };
    const quiet = await runCliInProcess(["tools"], { cwd: userHome, env: userEnv });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe("");
    const verbose = await runCliInProcess(["tools", "-v"], { cwd: userHome, env: userEnv });
    expect(verbose.stderr).toContain(`Using config ${join(configHome, "mcp-bridge", "mcp.json")}`);
  });
});

describe("the library's logger", () => {
  it("a failed start is a warning; a successful one says at info how many tools it gave", async () => {
    const lines: { level: string; message: string; fields?: LogFields }[] = [];
    const log = (level: string) => (message: string, fields?: LogFields) =>
      lines.push({ level, message, fields });
    const bridge = await startBridge({
      servers: { calc: stdioEntry("normal"), broken: stdioEntry("exits-at-start") },
      logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
      cwd: home,
      env,
    });
    await bridge.close();
    expect(lines.filter((l) => l.level === "warn" && l.message.includes('"broken"'))).toHaveLength(1);
    expect(lines.some((l) => l.level === "info" && /"calc" connected with 6 tools/.test(l.message))).toBe(
      true,
    );
  });
});
