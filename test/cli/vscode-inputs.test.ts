import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { CLI, cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { secondUser } from "../helpers/second-user.js";
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

/** Where an answer to `config`'s inputs is remembered (as InputStore names it), and what it holds. */
function storeFile(dir: string, config: string): string {
  const id = createHash("sha256").update(realpathSync(config)).digest("hex").slice(0, 16);
  return join(dir, ".config", "mcp-bridge", "inputs", `${id}.json`);
}

function answersFor(config: string, answer: string): string {
  return JSON.stringify({ config: realpathSync(config), answers: { "api-key": answer } });
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

  it("a remembered answer is used without a terminal, and only for the config file it was given for", async () => {
    const { dir, config, env } = vscodeHome();
    const file = storeFile(dir, config);
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(file, answersFor(config, "sk-remembered"), { mode: 0o600 });
    const run = await runCli(["call", "-c", config, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
    expect(run.stdout.trim()).toBe("5");
    expect(`${run.stdout}${run.stderr}`).not.toContain("sk-remembered");
    // The same input id in another config file (another project's) is not answered from it.
    const other = join(dir, "other.json");
    writeFileSync(other, readFileSync(config));
    const elsewhere = await runCli(["call", "-c", other, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toMatch(/\$\{input:api-key\}/);
  });

  it("a planted answers file (a symbolic link, or another user's file in an open folder) is never believed", async () => {
    const { dir, config, env } = vscodeHome();
    const file = storeFile(dir, config);
    const folder = join(file, "..");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const bait = join(dir, "bait.json");
    writeFileSync(bait, answersFor(config, "sk-planted"), { mode: 0o600 });
    symlinkSync(bait, file);
    const linked = await runCli(["call", "-c", config, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
    expect(linked.code).not.toBe(0);
    expect(linked.stderr).toMatch(/\$\{input:api-key\}/);
    rmSync(file);

    const other = secondUser();
    if (typeof other === "string") {
      console.log(`skipped the other-user half: ${other}`);
      return;
    }
    chmodSync(dir, 0o755);
    chmodSync(join(dir, ".config"), 0o755);
    chmodSync(join(dir, ".config", "mcp-bridge"), 0o755);
    chmodSync(folder, 0o777);
    // What the other user would write into the folder open to all: a file of theirs with their answer.
    writeFileSync(file, answersFor(config, "sk-planted"), { mode: 0o644 });
    chownSync(file, other.uid, other.gid);
    const planted = await runCli(["call", "-c", config, "keyed/add", "a=2", "b=3"], { cwd: dir, env });
    expect(planted.code).not.toBe(0);
    expect(planted.stderr).toMatch(/\$\{input:api-key\}/);
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
