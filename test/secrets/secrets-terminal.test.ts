import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { runProcess } from "../helpers/process.js";
import { TmuxSession } from "../helpers/tmux.js";

const STORE = { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "terminal test passphrase" };
const TYPED = "sk-typed-terminal-0123456789";

/** A real terminal (tmux): the value is typed without echo, and `add` asks before moving a secret. */
describe.skipIf(!TmuxSession.available())("secrets on a terminal", () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });
  const terminal = (args: readonly string[], home: string) => {
    const term = new TmuxSession([process.execPath, resolve(CLI), ...args], {
      cwd: home,
      env: { ...cliEnv(home, STORE), TERM: "xterm-256color" },
      remainOnExit: true,
      width: 200,
    });
    cleanup.push(() => term.close());
    return term;
  };
  const get = (name: string, home: string) =>
    runProcess(process.execPath, [CLI, "secrets", "get", name], {
      cwd: home,
      env: cliEnv(home, STORE),
      timeoutMs: 30_000,
    });

  it("secrets set asks for the value without echoing it", async () => {
    const home = emptyHome();
    const term = terminal(["secrets", "set", "TYPED_KEY"], home);
    await expect.poll(() => term.screen(), { timeout: 15_000 }).toContain("Value for TYPED_KEY (not echoed)");
    term.type(TYPED);
    await expect.poll(() => term.dead(), { timeout: 20_000 }).toBe(true);
    const screen = term.screen();
    expect(screen).not.toContain(TYPED);
    expect(screen).toContain("*".repeat(TYPED.length));
    expect((await get("TYPED_KEY", home)).stdout).toBe(`${TYPED}\n`);
  }, 60_000);

  it("add asks before moving a pasted secret into the store", async () => {
    const home = emptyHome();
    const config = join(home, "mcp.json");
    const term = terminal(
      ["add", "files", "-e", `API_KEY=${TYPED}`, "-c", config, "--", "node", "s.js"],
      home,
    );
    await expect.poll(() => term.screen(), { timeout: 15_000 }).toContain("Store the env API_KEY");
    term.type("y");
    await expect.poll(() => term.dead(), { timeout: 30_000 }).toBe(true);
    expect(readFileSync(config, "utf8")).toContain("${keyring:files.API_KEY}");
    expect((await get("files.API_KEY", home)).stdout).toBe(`${TYPED}\n`);
  }, 60_000);
});
