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
};

let home: string;
let config: string;
let failing: LocalHttpServer;

beforeAll(async () => {
  home = emptyHome();
  failing = await startFailingHttpServer();
  config = join(home, "secret-servers.json");
  const leaky = "console.error('starting with token ' + process.env.API_TOKEN); process.exit(3)";
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
  ["config", "show"],
  ["config", "show", "--json"],
  ["config", "validate", "--verbose"],
  ["config", "paths", "--verbose"],
];

describe("secrets are never printed", () => {
  it.each(commands)("mcp-bridge %s ...: no secret on stdout or stderr", async (...args: string[]) => {
    const run = await runCli([...args, "-c", config], { cwd: home, env: cliEnv(home) });
    const output = run.stdout + run.stderr;
    for (const [where, secret] of Object.entries(SECRETS))
      expect(output, `${where} secret leaked`).not.toContain(secret);
  });

  it("the failing server's stderr is shown (redacted) so the operator still learns what happened", async () => {
    const run = await runCli(["status", "--verbose", "-c", config], { cwd: home, env: cliEnv(home) });
    expect(run.stdout).toContain("starting with token ***");
  });

  it("library status, errors and logs are redacted too", async () => {
    const logs: string[] = [];
    const log = (message: string, fields?: unknown) => logs.push(message + JSON.stringify(fields ?? {}));
    await using bridge = await startBridge({
      config,
      env: {},
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const errors = await Promise.all(
      ["leaky/x", "remote/x"].map((name) => bridge.call(name).catch((e: unknown) => (e as Error).message)),
    );
    const everything = JSON.stringify([bridge.servers(), errors, logs]);
    for (const secret of Object.values(SECRETS)) expect(everything).not.toContain(secret);
  });
});
