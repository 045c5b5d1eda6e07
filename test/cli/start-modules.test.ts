import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { attachSession, toolNamed } from "../helpers/attach-client.js";
import { CLI, cliEnv, emptyHome } from "../helpers/cli.js";
import { moduleTrace } from "../helpers/module-trace.js";

/**
 * What the fast entries load, asserted on the set of modules a real process loaded (no timing): `--help`,
 * `--version`, `import "mcp-bridge"` and `attach` on a warm daemon load none of the heavy packages nor
 * the applications they do not use. An eager import added anywhere on their path fails here.
 */
const HEAVY: Readonly<Record<string, RegExp>> = {
  zod: /\/node_modules\/zod\//,
  ajv: /\/node_modules\/ajv\//,
  "the SDK server": /\/node_modules\/@modelcontextprotocol\/(server|node)\//,
  OpenTelemetry: /\/node_modules\/@opentelemetry\//,
  jose: /\/node_modules\/jose\//,
  redis: /\/node_modules\/(@redis|redis)\//,
  QuickJS: /\/node_modules\/(quickjs-emscripten[^/]*|@jitl)\//,
  "smol-toml": /\/node_modules\/smol-toml\//,
  re2js: /\/node_modules\/re2js\//,
  "gpt-tokenizer": /\/node_modules\/gpt-tokenizer\//,
  "the keychain binding": /\/node_modules\/@napi-rs\/keyring/,
  "the gateway": /\/dist\/src\/apps\/gateway\//,
  "the daemon's server": /\/dist\/src\/apps\/daemon\/(socket-server|operations)\.js$/,
  chat: /\/dist\/src\/apps\/(cli\/chat|agent)\//,
  skills: /\/dist\/src\/bridge\/features\/skills\.js$/,
  "code mode": /\/dist\/src\/codemode\//,
};
/** What only a command that talks to servers in this process needs. */
const CLI_ONLY_HEAVY: Readonly<Record<string, RegExp>> = {
  ...HEAVY,
  "the SDK client": /\/node_modules\/@modelcontextprotocol\/(client|core)\//,
  "the commands": /\/dist\/src\/apps\/cli\/commands\//,
  "the bridge": /\/dist\/src\/bridge\//,
};

/** What `import "mcp-bridge"` must not load: its functions load the runtime when first called. */
const LIBRARY_HEAVY: Readonly<Record<string, RegExp>> = {
  ...HEAVY,
  "the SDK client": /\/node_modules\/@modelcontextprotocol\/(client|core)\//,
  "the bridge runtime": /\/dist\/src\/bridge\/(bridge|calls|servers\/server-lifecycle)\.js$/,
  "the config loader": /\/dist\/src\/config\/(load|fields|normalize)\.js$/,
  "the connections": /\/dist\/src\/(connection|transport)\//,
  "the results code": /\/dist\/src\/results\//,
  "the tool-call executor": /\/dist\/src\/adapters\/execute\.js$/,
};

/**
 * What a bridge whose servers all run on stdio must not load: the Streamable HTTP / SSE client
 * transports, whose `SettledResponse extends Response` makes Node load its whole fetch implementation
 * (undici, about 1.4 MiB of heap) when the module is evaluated.
 */
const STDIO_ONLY_HEAVY: Readonly<Record<string, RegExp>> = {
  "the HTTP client transports":
    /\/dist\/src\/(transport\/(remote-transports|related-notifications|bounded-fetch)|sdk\/(keepalive-fetch|settled-response))\.js$/,
};

/**
 * The CLI's runner, its argument parser and its usage errors: `--version` and `--help` alone need none.
 * (The error classes may load: on Node >= 22.1 bin.ts checks its compile cache folder, whose refusal of
 * an unsafe folder is a typed error.)
 */
const RUNNER = /\/dist\/src\/apps\/cli\/(process-entry|run-cli|parse-arguments|usage-errors)\.js$/;

/** The names of `heavy` that some loaded file matches, with the first such file. */
function heavyIn(loaded: readonly string[], heavy: Readonly<Record<string, RegExp>>): string[] {
  return Object.entries(heavy).flatMap(([name, pattern]) => {
    const file = loaded.find((path) => pattern.test(path));
    return file === undefined ? [] : [`${name} (${file})`];
  });
}

const built = existsSync(CLI);
let home = "";
beforeAll(() => {
  if (!built) throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` first (npm test does)");
  home = emptyHome();
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function loadedBy(args: readonly string[], env: Record<string, string> = cliEnv(home)): string[] {
  const trace = moduleTrace();
  try {
    const run = spawnSync(process.execPath, [...trace.nodeArgs, ...args], {
      cwd: home,
      env,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const loaded = trace.loaded();
    // The trace itself works: the entry's own file is in it.
    expect(loaded.length).toBeGreaterThan(1);
    return loaded;
  } finally {
    trace.dispose();
  }
}

describe("the modules each fast entry loads", () => {
  it.each(["--version", "--help", "help call", "call --help", "serve --help"])(
    "mcp-bridge %s loads no command, no SDK and nothing heavy",
    (line) => {
      const loaded = loadedBy([CLI, ...line.split(" ")]);
      expect(loaded).toContain(resolve(CLI));
      expect(heavyIn(loaded, CLI_ONLY_HEAVY)).toEqual([]);
    },
  );

  it.each(["--version", "-V", "--help", "help"])(
    "mcp-bridge %s alone loads neither the argument parser nor the CLI's runner (bin.ts answers it)",
    (line) => {
      const loaded = loadedBy([CLI, line]);
      expect(heavyIn(loaded, { "the CLI's runner": RUNNER })).toEqual([]);
    },
  );

  it('import "mcp-bridge" loads neither the runtime, the SDK, zod, an application nor anything heavy', () => {
    const entry = pathToFileURL(resolve("dist/src/index.js")).href;
    const loaded = loadedBy(["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`]);
    expect(loaded).toContain(resolve("dist/src/index.js"));
    // startBridge, loadConfig and the execute functions load their code on first call (*-entry.ts).
    expect(heavyIn(loaded, LIBRARY_HEAVY)).toEqual([]);
  });

  it("a bridge of stdio servers loads the runtime it needs, but no application and no HTTP client transport", () => {
    const entry = pathToFileURL(resolve("dist/src/index.js")).href;
    const servers = JSON.stringify({ calc: stdioEntry("normal") });
    const script = `const { startBridge } = await import(${JSON.stringify(entry)});
const bridge = await startBridge({ servers: ${servers}, catalogCache: false, pins: false, telemetry: false });
const result = await bridge.call("calc/add", { a: 1, b: 2 });
await bridge.close();
if (result.isError || !result.text.includes("3")) throw new Error("unexpected result: " + result.text);`;
    const loaded = loadedBy(["--input-type=module", "-e", script]);
    // The trace sees what a lazy load brings in: the runtime is there once a bridge started.
    expect(loaded).toContain(resolve("dist/src/bridge/bridge.js"));
    expect(loaded).toContain(resolve("dist/src/transport/process-transport.js"));
    const { zod: _sdkOwn, ...heavy } = HEAVY;
    expect(heavyIn(loaded, { ...heavy, ...STDIO_ONLY_HEAVY })).toEqual([]);
  });

  it("attach on a warm daemon loads neither the bridge nor the SDK nor anything heavy, to its first tools/list", async () => {
    const runtime = mkdtempSync(join(tmpdir(), "mcp-bridge-start-attach-"));
    const config = join(home, "attach.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { calc: stdioEntry("normal") } }));
    const env = cliEnv(home, { XDG_RUNTIME_DIR: runtime });
    const trace = moduleTrace();
    try {
      // The first session starts the daemon; the traced second one finds it warm.
      const first = attachSession(["-c", config], { cwd: home, env });
      await first.initialize();
      // Waits for the server to be up in the daemon.
      expect(await toolNamed(first, "add")).toBe("calc_add");
      const second = attachSession(["-c", config], { cwd: home, env, nodeArgs: trace.nodeArgs });
      await second.initialize();
      expect(JSON.stringify(await second.request("tools/list", {}, 20_000))).toContain("add");
      await second.close();
      await first.close();
      const loaded = trace.loaded();
      expect(loaded).toContain(resolve(CLI));
      expect(heavyIn(loaded, CLI_ONLY_HEAVY)).toEqual([]);
    } finally {
      trace.dispose();
      const folder = join(runtime, "mcp-bridge");
      const pids = existsSync(folder)
        ? readdirSync(folder)
            .filter((name) => name.endsWith(".pid"))
            .map((name) => Number.parseInt(readFileSync(join(folder, name), "utf8"), 10))
        : [];
      for (const pid of pids.filter((each) => each > 0)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      rmSync(runtime, { recursive: true, force: true });
    }
  }, 60_000);
});
