import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { TmuxSession } from "../helpers/tmux.js";

// A real terminal (tmux): the CLI asks for a VS Code `${input:...}` once, without echoing a password.
describe.skipIf(!TmuxSession.available())("${input:...} on a terminal", () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    for (const step of cleanup.splice(0)) step();
  });

  it("asks once for a password input, masks what is typed, and the servers using it start", async () => {
    const dir = emptyHome();
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const config = join(dir, "mcp.json");
    const uses = (extra: Record<string, unknown>) => stdioEntry("normal", extra);
    writeFileSync(
      config,
      JSON.stringify({
        inputs: [{ type: "promptString", id: "api-key", description: "Calc API key", password: true }],
        mcpServers: {
          one: uses({ env: { API_KEY: "${input:api-key}" } }),
          two: uses({ env: { OTHER_KEY: "${input:api-key}" } }),
        },
      }),
    );
    const term = new TmuxSession([process.execPath, resolve(CLI), "status", "-c", config], {
      cwd: dir,
      env: { ...cliEnv(dir), TERM: "xterm-256color" },
      remainOnExit: true,
    });
    cleanup.push(() => term.close());
    await expect.poll(() => term.screen(), { timeout: 15_000 }).toContain("Calc API key");
    term.type("sk-typed-secret-123");
    await expect.poll(() => term.dead(), { timeout: 20_000 }).toBe(true);
    const screen = term.screen();
    expect(screen).not.toContain("sk-typed-secret-123");
    expect(screen).toContain("*******************");
    expect(screen.match(/Calc API key/g)).toHaveLength(1);
    expect(screen).toMatch(/one\s+stdio\s+connected/);
    expect(screen).toMatch(/two\s+stdio\s+connected/);
  }, 40_000);
});
