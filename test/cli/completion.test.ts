import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

let home: string;
let env: Record<string, string>;

beforeAll(() => {
  home = emptyHome();
  env = cliEnv(home);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** What bash completes for the words typed so far (the last one is the word under the cursor). */
function bashComplete(script: string, words: string[]): string[] {
  const file = join(home, "completion.bash");
  writeFileSync(file, script);
  const array = words.map((w) => `'${w}'`).join(" ");
  const run = spawnSync(
    "bash",
    [
      "-c",
      `source '${file}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _mcp_bridge; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8", timeout: 10_000 },
  );
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").filter(Boolean);
}

describe("shell completion (built CLI)", () => {
  it("bash completes commands, a command's own flags and subcommands", async () => {
    const run = await runCli(["completion", "bash"], { cwd: home, env });
    expect(run.code).toBe(0);
    expect(bashComplete(run.stdout, ["mcp-bridge", "st"])).toEqual(["status"]);
    const callFlags = bashComplete(run.stdout, ["mcp-bridge", "call", "x", "--"]);
    expect(callFlags).toEqual(expect.arrayContaining(["--timeout", "--max-chars", "--json"]));
    expect(callFlags).not.toContain("--format");
    expect(bashComplete(run.stdout, ["mcp-bridge", "-c", "x.json", "config", "va"])).toEqual(["validate"]);
  });

  it("zsh and fish scripts name every command; an unknown shell is a usage error", async () => {
    const zsh = await runCli(["completion", "zsh"], { cwd: home, env });
    expect(zsh.stdout).toContain("compdef _mcp_bridge mcp-bridge");
    expect(zsh.stdout).toContain("call) compadd -- --args --timeout");
    const fish = await runCli(["completion", "fish"], { cwd: home, env });
    expect(fish.stdout).toContain("-a status -d 'start every enabled server");
    expect(fish.stdout).toContain("-l trust-project -d 'start this folder\\'s");
    const bad = await runCli(["completion", "tcsh"], { cwd: home, env });
    expect(bad.code).toBe(2);
  });
});
