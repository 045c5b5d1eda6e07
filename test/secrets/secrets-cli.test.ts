import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";
import { runProcess } from "../helpers/process.js";
import { type SecretService, secretServiceMissing, startSecretService } from "../helpers/secret-service.js";

const SECRET = "xoxb-cli-secret-0123456789abcdef";

/** The built CLI with `input` on its stdin (a pipe: not a terminal). */
function cli(args: readonly string[], home: string, env: Record<string, string>, input = "") {
  return runProcess(process.execPath, [CLI, ...args], {
    cwd: home,
    env: cliEnv(home, env),
    timeoutMs: 30_000,
    label: `mcp-bridge ${args.join(" ")}`,
    input,
  });
}

/** The stdio server of the leak test: prints its argument on stderr and exits, so the error carries it. */
function leakyConfig(home: string): string {
  const config = join(home, "mcp.json");
  const script =
    "process.stderr.write('the key is ' + process.argv[1] + ' and ' + process.env.API_KEY + '\\n'); process.exit(3)";
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        leaky: {
          command: process.execPath,
          args: ["-e", script, "${keyring:CLI_KEY}"],
          env: { API_KEY: "${keyring:CLI_KEY}" },
        },
      },
    }),
  );
  return config;
}

/** Every store, the same commands: the OS keychain (a real Secret Service) and the encrypted file. */
function storeCases(): { name: string; missing?: string; env: () => Record<string, string> }[] {
  let service: SecretService | undefined;
  beforeAll(async () => {
    if (!secretServiceMissing) service = await startSecretService();
  }, 30_000);
  afterAll(() => service?.stop());
  return [
    {
      name: "the Secret Service",
      ...(secretServiceMissing ? { missing: secretServiceMissing } : {}),
      env: () => ({ DBUS_SESSION_BUS_ADDRESS: service?.env.DBUS_SESSION_BUS_ADDRESS ?? "" }),
    },
    {
      name: "the encrypted file",
      env: () => ({ MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "cli test passphrase" }),
    },
  ];
}

describe("mcp-bridge secrets", () => {
  for (const store of storeCases()) {
    describe.skipIf(store.missing !== undefined)(
      store.missing ? `in ${store.name} (skipped: ${store.missing})` : `in ${store.name}`,
      () => {
        it("sets from stdin, lists names only, gets to a pipe, removes", async () => {
          const home = emptyHome();
          const env = store.env();
          const set = await cli(["secrets", "set", "CLI_KEY"], home, env, `${SECRET}\n`);
          expect(set.stderr).toBe("");
          expect(set.code).toBe(0);
          expect(set.stdout).toContain("${keyring:CLI_KEY}");
          expect(set.stdout).not.toContain(SECRET);
          const list = await cli(["secrets", "list", "--json"], home, env);
          expect(JSON.parse(list.stdout).names).toContain("CLI_KEY");
          expect(list.stdout).not.toContain(SECRET);
          const got = await cli(["secrets", "get", "CLI_KEY"], home, env);
          expect(got.stdout).toBe(`${SECRET}\n`);
          const removed = await cli(["secrets", "rm", "CLI_KEY"], home, env);
          expect(removed.code).toBe(0);
          const gone = await cli(["secrets", "get", "CLI_KEY"], home, env);
          expect(gone.code).not.toBe(0);
          expect(gone.stderr).toContain("mcp-bridge secrets set CLI_KEY");
        });

        it("resolves ${keyring:…} for a server, and no output carries the value", async () => {
          const home = emptyHome();
          const env = store.env();
          await cli(["secrets", "set", "CLI_KEY"], home, env, SECRET);
          const config = leakyConfig(home);
          const runs = [
            await cli(["config", "show", "-c", config], home, env),
            await cli(["config", "show", "-c", config, "--json"], home, env),
            await cli(["status", "-c", config, "--json"], home, env),
            await cli(["tools", "leaky", "-c", config, "--verbose"], home, env),
            await cli(["call", "leaky.x", "-c", config, "--json"], home, env),
          ];
          // The server did start with the secret: its stderr line reached the error, masked.
          expect(runs.map((run) => run.stdout + run.stderr).join("\n")).toMatch(/the key is \S+ and/);
          for (const run of runs) {
            expect(run.stdout).not.toContain(SECRET);
            expect(run.stderr).not.toContain(SECRET);
          }
        });
      },
    );
  }

  it("never takes the value from the command line, and refuses an empty one", async () => {
    const home = emptyHome();
    const env = { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "p" };
    const extra = await cli(["secrets", "set", "K", SECRET], home, env);
    expect(extra.code).toBe(2);
    const empty = await cli(["secrets", "set", "K"], home, env, "");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("never taken from the command line");
    const badName = await cli(["secrets", "set", "../etc"], home, env, "v");
    expect(badName.code).toBe(2);
  });

  describe("on a terminal", () => {
    preloadCliInProcess();
    it("get refuses to print a secret without --reveal", async () => {
      const home = emptyHome();
      const run = await runCliInProcess(["secrets", "get", "K"], {
        cwd: home,
        env: cliEnv(home, { MCP_BRIDGE_SECRET_STORE: "file", MCP_BRIDGE_SECRET_PASSPHRASE: "p" }),
        tty: true,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--reveal");
    });
  });
});
