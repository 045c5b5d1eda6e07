import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli } from "../helpers/cli.js";
import { type LocalHttpServer, startFailingHttpServer } from "../helpers/http-servers.js";

/** Recognizable secrets, each placed where a careless tool would print it. */
const SECRETS = {
  env: "sk-ENV-SECRET-7f3a9c",
  header: "hdr-SECRET-41b2e8",
  bearer: "bearer-SECRET-93d1aa",
  urlPassword: "urlpass-SECRET-c0ffee",
  query: "query-SECRET-bada55",
  // Values that reach a definition through ${VAR} in places with no secret-looking name.
  urlPath: "path-SECRET-0d15ea5e",
  plainQuery: "tenant-SECRET-feed42",
  arg: "arg-SECRET-ba5eba11",
};

/** The host environment the ${VAR}s above come from; the variable names look harmless on purpose. */
const HOST_ENV = {
  MCP_PATH_PART: SECRETS.urlPath,
  TENANT: SECRETS.plainQuery,
  LICENSE_ID: SECRETS.arg,
};

let home: string;
let config: string;
let failing: LocalHttpServer;

beforeAll(async () => {
  home = emptyHome();
  failing = await startFailingHttpServer();
  config = join(home, "secret-servers.json");
  const leaky = "console.error('starting with token ' + process.env.API_TOKEN); process.exit(3)";
  const echoesArg = "console.error('licensed to ' + process.argv[1]); process.exit(3)";
  // Ordinary values under ordinary names, echoed back: they must stay readable.
  const flood =
    "console.error('flood done ' + process.env.COUNT + ' at ' + process.env.LEVEL); process.exit(3)";
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        good: stdioEntry("normal", { env: { API_TOKEN: SECRETS.env } }),
        leaky: { command: process.execPath, args: ["-e", leaky], env: { API_TOKEN: SECRETS.env } },
        remote: {
          type: "http",
          url:
            failing.url.replace("http://", `http://user:${SECRETS.urlPassword}@`) +
            `?api_key=${SECRETS.query}`,
          headers: { "X-Api-Key": SECRETS.header },
          bearerToken: SECRETS.bearer,
        },
        remotePath: {
          type: "http",
          url: `${failing.url.replace(/\/$/, "")}/\${MCP_PATH_PART}/mcp?tenant=\${TENANT}&page=1`,
        },
        echoesArg: { command: process.execPath, args: ["-e", echoesArg, "${LICENSE_ID}"] },
        flood: {
          command: process.execPath,
          args: ["-e", flood],
          env: { COUNT: "100000", LEVEL: "${LOG_LEVEL}" },
        },
      },
    }),
  );
});

afterAll(async () => {
  await failing.close();
  rmSync(home, { recursive: true, force: true });
});

const commands = [
  ["status"],
  ["status", "--verbose"],
  ["status", "--json", "--verbose"],
  ["tools"],
  ["tools", "--json", "--verbose"],
  ["tools", "--format", "openai"],
  ["call", "good/env"],
  ["call", "leaky/anything", "--verbose"],
  ["call", "remote/anything", "--json", "--verbose"],
  ["call", "mcp_nope", "--verbose"],
  ["call", "remotePath/anything", "--json", "--verbose"],
  ["call", "echoesArg/anything", "--verbose"],
  ["config", "show"],
  ["config", "show", "--json"],
  ["config", "validate", "--verbose"],
  ["config", "paths", "--verbose"],
];

describe("secrets are never printed", () => {
  it.each(commands)("mcp-bridge %s ...: no secret on stdout or stderr", async (...args: string[]) => {
    const run = await runCli([...args, "-c", config], { cwd: home, env: cliEnv(home, HOST_ENV) });
    const output = run.stdout + run.stderr;
    for (const [where, secret] of Object.entries(SECRETS))
      expect(output, `${where} secret leaked`).not.toContain(secret);
  });

  it("the failing server's stderr is shown (redacted) so the operator still learns what happened", async () => {
    const run = await runCli(["status", "--verbose", "-c", config], {
      cwd: home,
      env: cliEnv(home, HOST_ENV),
    });
    expect(run.stdout).toContain("starting with token ***");
    expect(run.stdout).toContain("licensed to ***");
  });

  it("ordinary values are not masked: a plain env value, a short value from a variable", async () => {
    const env = cliEnv(home, { ...HOST_ENV, LOG_LEVEL: "info" });
    const run = await runCli(["status", "--verbose", "-c", config], { cwd: home, env });
    expect(run.stdout).toContain("flood done 100000 at info");
  });

  it("library status, errors and logs are redacted too", async () => {
    const logs: string[] = [];
    const log = (message: string, fields?: unknown) => logs.push(message + JSON.stringify(fields ?? {}));
    await using bridge = await startBridge({
      config,
      env: HOST_ENV,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const errors = await Promise.all(
      ["leaky/x", "remote/x", "remotePath/x", "echoesArg/x"].map((name) =>
        bridge.call(name).catch((e: unknown) => (e as Error).message),
      ),
    );
    const everything = JSON.stringify([bridge.servers(), errors, logs]);
    for (const secret of Object.values(SECRETS)) expect(everything).not.toContain(secret);
  });
});
