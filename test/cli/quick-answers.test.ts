import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

/**
 * bin.ts answers `--version` and the overview help, asked alone, without loading the CLI's runner
 * (start-modules.test.ts checks what they load). The answers must be the runner's own: the same
 * line given with one more flag (`--quiet`, which changes neither) goes the runner's way.
 */
const home = emptyHome();
afterAll(() => rmSync(home, { recursive: true, force: true }));
const run = (args: string[]) => runCli(args, { cwd: home, env: cliEnv(home) });

describe("the answers bin.ts gives itself", () => {
  it.each([
    [["--version"], ["--version", "--quiet"]],
    [["-V"], ["-V", "-q"]],
    [["--help"], ["--help", "--quiet"]],
    [["-h"], ["-h", "-q"]],
    [["help"], ["help", "--quiet"]],
    [[], ["--quiet"]],
  ])("mcp-bridge %j answers as the runner does for %j (stdout, stderr, exit code)", async (quick, full) => {
    const [fast, slow] = await Promise.all([run(quick), run(full)]);
    expect(fast).toEqual(slow);
    expect(fast.stdout.length).toBeGreaterThan(0);
  });

  it("without a command the overview is a usage error (exit 2); --help and help exit 0", async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(["--help"])).code).toBe(0);
    expect((await run(["help"])).code).toBe(0);
  });
});
