import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { TmuxSession } from "../helpers/tmux.js";

// The built CLI with a VS Code mcp.json whose servers use `${input:...}`.
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

function vscodeHome(): { dir: string; config: string; env: Record<string, string> } {
  const dir = emptyHome();
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      inputs: [{ type: "promptString", id: "api-key", description: "Calc API key", password: true }],
      servers: {
        keyed: stdioEntry("normal", { env: { API_KEY: "${input:api-key}" } }),
        plain: stdioEntry("normal"),
      },
    }),
  );
  return { dir, config, env: cliEnv(dir) };
}

/** Runs `argv` on a real terminal, types `answer` at the input prompt, and returns the final screen. */
async function onTerminal(dir: string, env: Record<string, string>, argv: string[], answer: string) {
  const term = new TmuxSession([process.execPath, resolve(CLI), ...argv], {
    cwd: dir,
    env: { ...env, TERM: "xterm-256color" },
    remainOnExit: true,
  });
  cleanup.push(() => term.close());
  await expect.poll(() => term.screen(), { timeout: 15_000 }).toContain("Calc API key");
  term.type(answer);
  await expect.poll(() => term.dead(), { timeout: 20_000 }).toBe(true);
  return term.screen();
}

describe("VS Code ${input:...} with the CLI", () => {
  it("call server/tool of a server that needs an unanswered input says why, not 'No server named'", async () => {
    const { dir, config, env } = vscodeHome();
    const run = await runCli(["call", "-c", config, "keyed/add", "a=1", "b=2"], { cwd: dir, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toMatch(/No server named/);
    expect(run.stderr).toMatch(/\$\{input:api-key\}/);
    // `list SERVER` looks the name up the same way.
    const list = await runCli(["list", "-c", config, "keyed"], { cwd: dir, env });
    expect(list.code).not.toBe(0);
    expect(list.stderr).not.toMatch(/No server named/);
    expect(list.stderr).toMatch(/\$\{input:api-key\}/);
  });

  describe.skipIf(!TmuxSession.available())("on a terminal", () => {
    it("call server/tool asks for the input and calls; later runs reuse the answer, kept 0600 in a 0700 folder", async () => {
      const { dir, config, env } = vscodeHome();
      const screen = await onTerminal(
        dir,
        env,
        ["call", "-c", config, "keyed/add", "a=1", "b=2"],
        "sk-typed-1",
      );
      expect(screen).not.toContain("sk-typed-1");
      expect(screen).not.toMatch(/No server named/);
      expect(screen).toMatch(/^3$/m);

      // No terminal now: the remembered answer is used, nothing is asked.
      const again = await runCli(["call", "-c", config, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
      expect(again.stderr).toBe("");
      expect(again.stdout.trim()).toBe("5");

      const store = join(dir, ".config", "mcp-bridge", "inputs");
      expect(statSync(store).mode & 0o777).toBe(0o700);
      const files = readdirSync(store);
      expect(files).toHaveLength(1);
      const file = join(store, files[0] as string);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, "utf8")).toContain("sk-typed-1");

      // Forgetting: the next run without a terminal cannot answer, so the server is skipped again.
      const forget = await runCli(["auth", "forget-inputs", "-c", config], { cwd: dir, env });
      expect(forget.code).toBe(0);
      expect(forget.stdout).not.toContain("sk-typed-1");
      const after = await runCli(["call", "-c", config, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
      expect(after.code).not.toBe(0);
      expect(after.stderr).toMatch(/\$\{input:api-key\}/);
    }, 60_000);
  });
});
