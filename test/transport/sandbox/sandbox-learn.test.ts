import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../../fixtures/servers/index.js";
import { cliHome, preloadCliInProcess, runCli, runCliInProcess } from "../../helpers/cli.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((path) => existsSync(path));
const strace = ["/usr/bin/strace", "/bin/strace"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux"
    ? "sandbox learn needs Linux"
    : !bwrap
      ? "bwrap is not installed"
      : !strace
        ? "strace is not installed (apt-get install strace)"
        : undefined;
if (skip) console.log(`skipped: ${skip}`);

const { home, env, config } = cliHome({
  probe: { command: process.execPath, args: [fixturePath("probe-server")], sandbox: true },
});
const project = join(home, "project");
mkdirSync(project);
writeFileSync(join(project, "in.txt"), "input");
writeFileSync(join(project, "unrelated.txt"), "never read");
preloadCliInProcess();

describe("sandbox learn: usage", () => {
  it("a --call whose arguments are not a JSON object is a usage error naming the form", async () => {
    const run = await runCliInProcess(
      ["-c", config, "sandbox", "learn", "probe", "--call", "read_file={nope"],
      {
        cwd: project,
        env,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--call must be TOOL or TOOL='\{"json":"object"\}'/);
  });

  it("a server that is not a configured stdio server is named with the ones that are", async () => {
    const run = await runCliInProcess(["-c", config, "sandbox", "learn", "nothere"], { cwd: project, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /"nothere": it is not a configured stdio server \(the configured stdio servers are probe\)/,
    );
  });
});

describe.skipIf(skip !== undefined)("sandbox learn: a real server under strace", () => {
  let listener: Server;
  let port = 0;
  beforeAll(async () => {
    listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it("proposes the file it read, the one it wrote and the address it reached, nothing unrelated", async () => {
    const calls = [
      `read_file=${JSON.stringify({ path: join(project, "in.txt") })}`,
      `write_file=${JSON.stringify({ path: "out.txt", content: "written" })}`,
      `connect=${JSON.stringify({ host: "127.0.0.1", port })}`,
    ].flatMap((call) => ["--call", call]);
    const run = await runCli(["-c", config, "sandbox", "learn", "probe", ...calls, "--json"], {
      cwd: project,
      env,
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer.calls).toEqual([
      { tool: "read_file", ok: true },
      { tool: "write_file", ok: true },
      { tool: "connect", ok: true },
    ]);
    expect(answer.learned).toEqual({
      read: [join(project, "in.txt")],
      write: [join(project, "out.txt")],
      hosts: ["127.0.0.1"],
    });
    expect(answer.sandbox).toEqual({
      read: [join(project, "in.txt")],
      write: [join(project, "out.txt")],
      network: ["127.0.0.1"],
    });
    expect(run.stdout).not.toMatch(/unrelated/);
  }, 120_000);

  it("prints a path the server made up with escapes, never a raw control character or line break", async () => {
    const hostile = "evil\u001b]0;owned\u0007\nwrite: shadow.txt";
    const call = `write_file=${JSON.stringify({ path: hostile, content: "x" })}`;
    const run = await runCli(["-c", config, "sandbox", "learn", "probe", "--call", call], {
      cwd: project,
      env,
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal.
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(run.stdout).not.toMatch(/^\s*write: shadow/m);
    expect(run.stdout).toContain(`${project}/evil\\u001b]0;owned\\u0007\\nwrite: shadow.txt`);
    expect(run.stdout).toMatch(/^"sandbox": \{\n {2}"read": \[\],\n {2}"write": \[\n/m);
  }, 120_000);

  it("says to install strace when it is not on PATH, and starts nothing", async () => {
    const bin = join(home, "bin-without-strace");
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, "bwrap"))) symlinkSync(bwrap as string, join(bin, "bwrap"));
    const run = await runCli(["-c", config, "sandbox", "learn", "probe"], {
      cwd: project,
      env: { ...env, PATH: bin },
      timeoutMs: 60_000,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /strace was not found on PATH\. Install it \(Debian\/Ubuntu: apt-get install strace/,
    );
  }, 90_000);
});
