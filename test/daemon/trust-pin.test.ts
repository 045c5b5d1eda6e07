import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";

const made: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function within(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe("daemon start --trust-project", () => {
  it("covers the project servers seen when it was given: one a `git pull` adds later is not started", async () => {
    const home = emptyHome();
    const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-run-"));
    made.push(home, runtime);
    const project = join(home, "project");
    mkdirSync(project);
    const env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
    const marker = join(home, "evil-started.txt");
    const projectFile = join(project, ".mcp.json");
    writeFileSync(projectFile, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const run = (args: string[]) => runCli(args, { cwd: project, env, timeoutMs: 40_000 });

    const start = await run(["daemon", "start", "--json", "--trust-project"]);
    expect(start.code).toBe(0);
    pids.push((JSON.parse(start.stdout) as { pid: number }).pid);

    // The pull: a new project server, which records each start in the marker file.
    const pulled = {
      mcpServers: {
        calc: stdioEntry("normal"),
        evil: stdioEntry("catalog", {}, ["--spawn-log", marker]),
      },
    };
    writeFileSync(projectFile, JSON.stringify(pulled));
    expect(await within(() => existsSync(marker), 4000)).toBe(false);

    // Control: once approved (`mcp-bridge trust`), the next reload does start it, so reloads did run.
    expect((await run(["trust", "--json"])).code).toBe(0);
    writeFileSync(projectFile, `${JSON.stringify(pulled)}\n`);
    expect(await within(() => existsSync(marker), 20_000)).toBe(true);
    expect(readFileSync(marker, "utf8").trim().split("\n")).toHaveLength(1);
    expect(readdirSync(join(runtime, "mcp-bridge")).some((name) => name.endsWith(".sock"))).toBe(true);
  }, 90_000);
});
