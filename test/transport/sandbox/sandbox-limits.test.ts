import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { normalizeServers } from "../../../src/config/normalize.js";
import { startBridge } from "../../../src/index.js";
import { limitHit, prlimitOptions } from "../../../src/transport/sandbox/resource-limits.js";
import { fixturePath, stdioEntry } from "../../fixtures/servers/index.js";
import { capturingLogger, until } from "../../helpers/wait.js";

const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find((path) => existsSync(path));
const prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].find((path) => existsSync(path));
const skip =
  process.platform !== "linux"
    ? "resource limits need Linux"
    : !bwrap || !prlimit
      ? "bwrap or prlimit is not installed"
      : undefined;
if (skip) console.log(`skipped: ${skip}`);

const load = (entry: Record<string, unknown>) =>
  normalizeServers([["s", entry]], { env: {}, homeDir: "/home/u", format: "object" });

describe("limits in a server entry", () => {
  it("are read for a stdio server; absent means none", () => {
    const limits = { memoryMb: 256, pids: 32, cpuSeconds: 60 };
    expect(load({ command: "node", sandbox: true, limits }).servers[0]).toMatchObject({ limits });
    expect(load({ command: "node" }).servers[0]).not.toHaveProperty("limits");
  });

  it("a limit that would not be enforced, or is misspelled, leaves the server out with the reason", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ command: "node", limits: { cpuPercent: 50 } }, /cpuPercent.*not enforced.*cpuSeconds/],
      [{ command: "node", limits: { pids: 8 } }, /"limits.pids" needs "sandbox"/],
      [{ command: "node", limits: { memory: 8 } }, /"limits.memory" is not a limit/],
      [{ command: "node", limits: { memoryMb: 0.5 } }, /whole number/],
      [{ command: "node", limits: 64 }, /must be a table/],
      [{ url: "http://127.0.0.1:1/mcp", limits: { memoryMb: 64 } }, /applies only to stdio/],
    ];
    for (const [entry, reason] of cases) {
      const config = load(entry);
      expect(config.servers).toEqual([]);
      expect(config.warnings[0]?.message).toMatch(reason);
    }
  });
});

describe("which limit stopped a server", () => {
  it("is named only when set, from the signal or the server's own words", () => {
    const all = { memoryMb: 64, pids: 8, cpuSeconds: 1 };
    expect(limitHit(all, { code: null, signal: "SIGXCPU" }, [])).toBe("cpuSeconds");
    expect(limitHit(all, { code: 152, signal: null }, [])).toBe("cpuSeconds");
    expect(limitHit({ memoryMb: 64 }, { code: 152, signal: null }, [])).toBeUndefined();
    const oom = ["FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"];
    expect(limitHit(all, { code: 134, signal: null }, oom)).toBe("memoryMb");
    expect(limitHit({ pids: 8 }, { code: 134, signal: null }, oom)).toBeUndefined();
    expect(limitHit(all, { code: 1, signal: null }, ["Error: spawn sleep EAGAIN"])).toBe("pids");
    expect(limitHit(undefined, { code: null, signal: "SIGXCPU" }, oom)).toBeUndefined();
    expect(limitHit(all, { code: 1, signal: null }, ["Error: boom"])).toBeUndefined();
  });

  it("prlimit gets soft and hard limits; the CPU's hard one a second later", () => {
    expect(prlimitOptions({ memoryMb: 2, pids: 5, cpuSeconds: 3 })).toEqual([
      `--data=${2 * 1024 * 1024}`,
      "--nproc=5",
      "--cpu=3:4",
    ]);
  });
});

/**
 * What this Node reserves as data before running a line (VmData at start): RLIMIT_DATA counts it, and
 * it differs by version (Node 22 about 100 MiB, Node 24 about 560 MiB of reservations), so each limit
 * below is that much plus the headroom the test means.
 */
function startData(): number {
  const status = spawnSync(
    process.execPath,
    ["-e", 'process.stdout.write(require("fs").readFileSync("/proc/self/status", "utf8"))'],
    {
      encoding: "utf8",
    },
  );
  const kib = Number(/VmData:\s+(\d+) kB/.exec(status.stdout ?? "")?.[1] ?? 0);
  return Math.ceil(kib / 1024);
}
const startDataMb = startData();
const capped = startDataMb + 160;
const roomy = startDataMb + 512;

/** A bridge with one server `name` (the probe) under `limits`, and the message it fails with after `tool`. */
async function stoppedBy(
  limits: Record<string, number>,
  tool: string,
  args: Record<string, unknown>,
  sandbox = true,
): Promise<string> {
  await using bridge = await startBridge({
    servers: { capped: stdioEntry("probe-server", { sandbox, limits, restart: false }) },
  });
  await bridge.ready();
  expect(bridge.server("capped")?.state, bridge.server("capped")?.lastError?.message).toBe("connected");
  await expect(bridge.call(`capped/${tool}`, args)).rejects.toThrow(/stopped/);
  await until(() => bridge.server("capped")?.lastError !== undefined, 20_000);
  return bridge.server("capped")?.lastError?.message ?? "";
}

describe.skipIf(skip !== undefined)(
  "a server over its limits is stopped by the kernel, and says which",
  () => {
    it("memoryMb: allocating past it ends the server, named in the error", async () => {
      const message = await stoppedBy({ memoryMb: capped }, "allocate", { mb: 2000 });
      expect(message).toMatch(
        new RegExp(`Server "capped" stopped unexpectedly.*memory limit \\("limits.memoryMb": ${capped}`),
      );
    }, 60_000);

    it("memoryMb without a sandbox: prlimit alone", async () => {
      const message = await stoppedBy({ memoryMb: capped }, "allocate", { mb: 2000 }, false);
      expect(message).toMatch(new RegExp(`memory limit \\("limits.memoryMb": ${capped}`));
    }, 60_000);

    it("cpuSeconds: burning CPU past it ends the server with SIGXCPU, named in the error", async () => {
      const message = await stoppedBy({ cpuSeconds: 1 }, "spin", {});
      expect(message).toMatch(/CPU time limit \("limits.cpuSeconds": 1\)/);
    }, 60_000);

    it("a server under its limits works as before", async () => {
      await using bridge = await startBridge({
        servers: {
          roomy: stdioEntry("probe-server", { sandbox: true, limits: { memoryMb: roomy, cpuSeconds: 60 } }),
        },
      });
      await bridge.ready();
      expect((await bridge.call("roomy/allocate", { mb: 8 })).text).toBe("allocated 8 MiB");
    }, 60_000);

    it("pids under root is said not to be enforced (the kernel exempts root)", async () => {
      if (process.getuid?.() !== 0) return;
      const { logger, messages } = capturingLogger();
      await using bridge = await startBridge({
        logger,
        servers: { capped: stdioEntry("probe-server", { sandbox: true, limits: { pids: 64 } }) },
      });
      expect(bridge.server("capped")?.state).toBe("connected");
      expect(messages.join("\n")).toMatch(/"limits.pids" is not enforced.*root/);
    }, 60_000);
  },
);

/**
 * RLIMIT_NPROC binds only a user other than root: as root, the host runs as `nobody` (setpriv), and
 * the server's processes are counted in its sandbox's own user namespace.
 */
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
const asNobody = process.getuid?.() === 0 && setpriv !== undefined;
describe.skipIf(skip !== undefined || (process.getuid?.() === 0 && !asNobody))("pids", () => {
  it("starting more processes than the limit ends the server, named in the error", () => {
    const built = join(process.cwd(), "dist/src/index.js");
    const script = `
      import { startBridge } from ${JSON.stringify(built)};
      const bridge = await startBridge({ servers: { capped: {
        command: process.execPath, args: [${JSON.stringify(fixturePath("probe-server"))}],
        sandbox: true, limits: { pids: 24 }, restart: false,
      } } });
      await bridge.ready();
      const before = bridge.server("capped").state;
      const call = await bridge.call("capped/spawn_many", { count: 40 }).then(() => "answered", (e) => e.message);
      for (let i = 0; i < 200 && !bridge.server("capped").lastError; i++) await new Promise((r) => setTimeout(r, 50));
      console.log(JSON.stringify({ before, call, error: bridge.server("capped").lastError?.message }));
      await bridge.close();
    `;
    const command = asNobody ? (setpriv as string) : process.execPath;
    const prefix = asNobody ? ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath] : [];
    const run = spawnSync(command, [...prefix, "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" },
      timeout: 60_000,
    });
    const line = run.stdout.trim().split("\n").pop() ?? "";
    expect(line, run.stderr).toMatch(/^\{/);
    const outcome = JSON.parse(line) as { before: string; call: string; error: string };
    expect(outcome.before).toBe("connected");
    expect(outcome.error).toMatch(/process limit \("limits.pids": 24, processes and threads\)/);
  }, 90_000);
});
