import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath } from "../fixtures/servers/index.js";
import { CLI, cliHome } from "../helpers/cli.js";
import { type ProcessRun, runProcess } from "../helpers/process.js";

/**
 * The hosts of examples/hosts/ (Python and Go, standard library only) as their users run them: each
 * lists the tools with the parameters it read from the schemas, calls tools through the wrappers it
 * built, and shows the upstream status, through the REST face of `serve --http` and through MCP over
 * stdio. Upstream: the bundled calculator, a server with enum/default/integer/array parameters and an
 * isError result with structured content, and a server that fails at start.
 */

const PYTHON_HOST = resolve("examples/hosts/python/host.py");
const GO_HOST = resolve("examples/hosts/go");
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const hasGo = spawnSync("go", ["version"]).status === 0;
if (!hasPython) console.warn("Python host tests skipped: python3 is not installed");
if (!hasGo) console.warn("Go host tests skipped: go is not installed (Debian: apt-get install golang-go)");

const SERVERS = {
  calc: { command: process.execPath, args: [resolve("dist/examples/servers/calculator.js")] },
  units: { command: process.execPath, args: [fixturePath("typed-params")] },
  broken: { command: process.execPath, args: [fixturePath("exits-at-start")] },
};
const { home, env, config } = cliHome(SERVERS);
const temps: string[] = [];
let goHost = "";
let gateway: ChildProcess | undefined;
let base = "";

/** The tokens the REST gateway accepts (one per host, so each has its own call budget) and its admin token. */
const TOKENS = { python: "python-client-token", go: "go-client-token", admin: "admin-token-for-status" };
/**
 * Per client: REST_CALLS sends seven calls to the gateway before its last, which is refused. A refill
 * of one call takes over 8 s, far more than a host's calls take one after the other.
 */
const CALLS_PER_MINUTE = 7;

function run(
  command: string,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
  cwd = home,
): Promise<ProcessRun> {
  return runProcess(command, args, { cwd, env: { ...env, ...extraEnv }, timeoutMs: 100_000 });
}

beforeAll(async () => {
  if (hasGo) {
    // Go wants a writable cache and module folder; the host needs nothing but the standard library.
    const goHome = mkdtempSync(join(tmpdir(), "mcp-bridge-go-"));
    temps.push(goHome);
    goHost = join(goHome, "host");
    const goEnv = {
      GOCACHE: join(goHome, "cache"),
      GOPATH: join(goHome, "path"),
      HOME: goHome,
      GOFLAGS: "",
      GOTOOLCHAIN: "local",
    };
    // In the example's own folder, as its README says: `go build` there.
    const built = await run("go", ["build", "-o", goHost, "."], goEnv, GO_HOST).catch((error: Error) => ({
      code: -1,
      stdout: "",
      stderr: error.message,
    }));
    if (built.code !== 0) throw new Error(`go build failed:\n${built.stderr}`);
  }
  gateway = spawn(
    process.execPath,
    [
      CLI,
      "serve",
      "--http",
      "127.0.0.1:0",
      "--json",
      "--config",
      config,
      "--calls-per-minute",
      String(CALLS_PER_MINUTE),
    ],
    {
      cwd: home,
      env: {
        ...env,
        MCP_BRIDGE_GATEWAY_TOKENS: `${TOKENS.python},${TOKENS.go}`,
        MCP_BRIDGE_GATEWAY_ADMIN_TOKEN: TOKENS.admin,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error("the gateway did not listen within 60 s")), 60_000);
    createInterface({ input: gateway?.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      clearTimeout(timer);
      done((JSON.parse(line) as { url: string }).url);
    });
    gateway?.once("exit", (code) => fail(new Error(`the gateway exited with ${code}`)));
  });
  base = url.replace(/\/mcp$/, "");
}, 180_000);

afterAll(async () => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) {
    const exited = new Promise((done) => gateway?.once("exit", done));
    gateway.kill("SIGTERM");
    const timer = setTimeout(() => gateway?.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Calls both faces make, in order: [name, JSON arguments]. */
const CALLS: [string, string][] = [
  ["calc_add", '{"a":20,"b":22}'],
  // The upstream's own isError result.
  ["calc_divide", '{"a":1,"b":0}'],
  // Defaults filled in by the host's wrapper.
  ["units_convert", '{"value":100}'],
  // Refused by the host's wrapper (enum, type, missing): never sent.
  ["units_convert", '{"value":1,"unit":"rankine"}'],
  ["calc_add", '{"a":"x","b":1}'],
  ["calc_greet", "{}"],
  // isError with structured content.
  ["units_refuse", "{}"],
  ["units_convert", '{"value":0,"unit":"kelvin","digits":2,"tags":["a","b"]}'],
  // Names the host must rename for its own language, sent under the schema's names.
  ["units_odd_names", '{"class":"x","a-b":1,"a_b":2}'],
];
/** On the REST face also: a schema violation only the gateway sees (422), then the limit (429). */
const REST_CALLS: [string, string][] = [
  ...CALLS,
  ["units_convert", '{"value":1,"tags":[1,2]}'],
  ["calc_add", '{"a":1,"b":1}'],
];

const pythonCalls = (calls: [string, string][]) => calls.flatMap(([name, args]) => ["--call", name, args]);
const goCalls = (calls: [string, string][]) =>
  calls.flatMap(([name, args]) => ["-call", name, "-args", args]);
const serveStdio = [process.execPath, CLI, "serve", "--stdio", "--config", config];

/** The calls and their answers, each starting with its `call NAME ARGS` line (the status after them is cut). */
function answersIn(stdout: string): string[] {
  const end = stdout.indexOf("\nstatus:\n");
  return stdout
    .slice(0, end + 1)
    .split(/^call /m)
    .slice(1);
}

/** What every host prints, whichever face it used. */
function expectCommonOutput(stdout: string): void {
  const lines = stdout.split("\n");
  expect(lines).toContain("tools (8):");
  // Parameters read from the schemas: required, enum with default, integer with default, optional.
  expect(lines).toContain("  calc_add(a: number, b: number)");
  expect(lines).toContain("      Add two numbers");
  expect(lines).toContain(
    '  units_convert(value: number, unit: "fahrenheit"|"kelvin" = "fahrenheit", digits: integer = 1, tags?: array)',
  );
  expect(lines).toContain("      Convert a temperature from Celsius");
  expect(lines).toContain("  units_refuse()");
  expect(lines).toContain("  units_odd_names(class: string, a-b: number, a_b: number)");
  const answers = answersIn(stdout);
  expect(answers).toEqual([
    'calc_add {"a":20,"b":22}\n  -> 42\n',
    'calc_divide {"a":1,"b":0}\n  error: Cannot divide by zero: b must not be 0.\n',
    'units_convert {"value":100}\n  -> 212.0 fahrenheit\n',
    'units_convert {"unit":"rankine","value":1}\n  refused (host): argument "unit" must be one of "fahrenheit"|"kelvin"\n',
    'calc_add {"a":"x","b":1}\n  refused (host): argument "a" must be of type number\n',
    'calc_greet {}\n  refused (host): missing required argument "name"\n',
    'units_refuse {}\n  error: refused: the sensor is offline\n     structured: {"sensor":"offline"}\n',
    'units_convert {"digits":2,"tags":["a","b"],"unit":"kelvin","value":0}\n  -> 273.15 kelvin [a,b]\n',
    'units_odd_names {"a-b":1,"a_b":2,"class":"x"}\n  -> a-b=1 a_b=2 class=x\n',
    ...answers.slice(9),
  ]);
  const status = stdout.slice(stdout.indexOf("\nstatus:\n") + 1).split("\n");
  expect(status[0]).toBe("status:");
  expect(status).toContain("  calc: connected, 5 tools");
  expect(status).toContain("  units: connected, 3 tools");
  expect(status.find((line) => line.startsWith("  broken:"))).toMatch(
    /^ {2}broken: failed, 0 tools - SERVER_START_FAILED: Server "broken" exited with code 1/,
  );
}

/** The REST face's own answers: the gateway's 422 and its 429 with Retry-After, as the host shows them. */
function expectRestRefusals(stdout: string): void {
  const answers = answersIn(stdout);
  expect(answers[9]).toMatch(
    /^units_convert \{"tags":\[1,2\],"value":1\}\n {2}refused \(422 INVALID_ARGUMENTS\): Invalid arguments for tool "units_convert".*tags/,
  );
  expect(answers[10]).toMatch(
    /^calc_add \{"a":1,"b":1\}\n {2}refused \(429 RATE_LIMITED\): Call to calc_add refused: at most 7 calls per minute.* \(retry after \d+ s\)\n/,
  );
}

describe.skipIf(!hasPython)("the Python host (examples/hosts/python/host.py)", () => {
  it("uses the REST face of serve --http: tools, wrappers, calls, refusals and status", async () => {
    const result = await run("python3", [PYTHON_HOST, "--rest", base, ...pythonCalls(REST_CALLS)], {
      MCP_BRIDGE_TOKEN: TOKENS.python,
      MCP_BRIDGE_ADMIN_TOKEN: TOKENS.admin,
    });
    expect(result.code, result.stderr).toBe(0);
    expectCommonOutput(result.stdout);
    expectRestRefusals(result.stdout);
    // Without a token the gateway refuses the host, which says so and fails.
    const refused = await run("python3", [PYTHON_HOST, "--rest", base]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/mcp-bridge failed: .*bearer token.*\(AUTH\)/);
  }, 120_000);

  it("uses MCP over stdio with the command it is given", async () => {
    const result = await run("python3", [PYTHON_HOST, ...pythonCalls(CALLS), "--stdio", ...serveStdio]);
    expect(result.code, result.stderr).toBe(0);
    expectCommonOutput(result.stdout);
  }, 120_000);
});

describe.skipIf(!hasPython)(
  "the Python host through `mcp-bridge attach` (the config's daemon serves it)",
  () => {
    it("uses MCP over stdio through attach, which starts the daemon that serves the session", async () => {
      // A runtime folder of its own, so the daemon attach starts is this test's alone.
      const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-hosts-attach-"));
      temps.push(runtime);
      // A config of its own (so the daemon is this test's) with the CLI's default names (mcp_calc_add):
      // attach serves serve's names all the same (calc_add), the names the hosts call.
      const attachConfig = join(home, "attach.json");
      writeFileSync(attachConfig, JSON.stringify({ mcpServers: SERVERS }));
      const attach = [process.execPath, CLI, "attach", "--config", attachConfig];
      try {
        const result = await run("python3", [PYTHON_HOST, ...pythonCalls(CALLS), "--stdio", ...attach], {
          XDG_RUNTIME_DIR: runtime,
        });
        expect(result.code, result.stderr).toBe(0);
        expectCommonOutput(result.stdout);
      } finally {
        await run(process.execPath, [CLI, "daemon", "stop", "--config", attachConfig], {
          XDG_RUNTIME_DIR: runtime,
        }).catch(() => undefined);
      }
    }, 120_000);
  },
);

/** A port nothing listens on: a gateway that is down. */
async function closedPort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** A gateway that is down, a server that exits before answering: one line saying so, exit 1, no crash. */
async function expectFailuresReported(
  host: (args: string[]) => Promise<{ code: number | null; stderr: string }>,
) {
  const down = await host(["rest", `http://127.0.0.1:${await closedPort()}`]);
  expect(down.code).toBe(1);
  expect(down.stderr).toMatch(/^mcp-bridge failed: .*refused/);
  expect(down.stderr).not.toMatch(/Traceback|panic|goroutine/);
  const exits = await host(["stdio", process.execPath, "-e", "0"]);
  expect(exits.code).toBe(1);
  expect(exits.stderr).toMatch(/^mcp-bridge failed: the server closed its stdout/);
  expect(exits.stderr).not.toMatch(/Traceback|panic|goroutine/);
}

describe.skipIf(!hasPython)("the Python host when the gateway is down or exits", () => {
  it("says what failed and exits 1", async () => {
    await expectFailuresReported(([face, ...rest]) => run("python3", [PYTHON_HOST, `--${face}`, ...rest]));
  }, 60_000);
});

describe.skipIf(!hasGo)("the Go host when the gateway is down or exits", () => {
  it("says what failed and exits 1", async () => {
    await expectFailuresReported(([face, ...rest]) => run(goHost, [`-${face}`, ...rest]));
  }, 60_000);
});

describe.skipIf(!hasGo)("the Go host (examples/hosts/go)", () => {
  it("uses the REST face of serve --http: tools, wrappers, calls, refusals and status", async () => {
    const result = await run(goHost, ["-rest", base, ...goCalls(REST_CALLS)], {
      MCP_BRIDGE_TOKEN: TOKENS.go,
      MCP_BRIDGE_ADMIN_TOKEN: TOKENS.admin,
    });
    expect(result.code, result.stderr).toBe(0);
    expectCommonOutput(result.stdout);
    expectRestRefusals(result.stdout);
  }, 120_000);

  it("uses MCP over stdio with the command MCP_BRIDGE_COMMAND names", async () => {
    const result = await run(goHost, [...goCalls(CALLS), "-stdio"], {
      MCP_BRIDGE_COMMAND: serveStdio.join(" "),
    });
    expect(result.code, result.stderr).toBe(0);
    expectCommonOutput(result.stdout);
  }, 120_000);
});
