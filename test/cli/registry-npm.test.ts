import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, emptyHome, runCli, runCliInProcess } from "../helpers/cli.js";
import { startTestRegistry, type TestRegistry } from "../helpers/mcp-registry.js";
import { type NpmRegistry, packFixtureServer, startNpmRegistry } from "../helpers/npm-registry.js";

/**
 * End to end with real processes: an MCP Registry entry naming an npm package that a local npm
 * registry serves (`npm pack` of a fixture server); `add` pins it with the tarball's integrity, the
 * real `npx` runs it from mcp-bridge's verified copy, a tampered republish of that version is refused
 * before the start, and `update` moves to a newer version after showing what changed.
 */

const PACKAGE = "@fixture/echo-server";
const NAME = "io.github.fixture/echo";
let npm: NpmRegistry;
let registry: TestRegistry;
let home: string;
let config: string;
let env: Record<string, string>;

function entry(version: string, extra: Record<string, unknown> = {}) {
  return {
    name: NAME,
    description: "The fixture echo server",
    version,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: npm.base,
        identifier: PACKAGE,
        version,
        transport: { type: "stdio" },
        ...extra,
      },
    ],
  };
}

beforeAll(async () => {
  npm = await startNpmRegistry();
  registry = await startTestRegistry([]);
  npm.publish(PACKAGE, "1.0.0", packFixtureServer(PACKAGE, "1.0.0", "first"));
  registry.publish(entry("1.0.0"));
  home = emptyHome();
  config = join(home, "mcp.json");
  writeFileSync(config, '{ "mcpServers": {} }\n');
  env = cliEnv(home, {
    MCP_BRIDGE_CACHE_DIR: join(home, "cache"),
    npm_config_cache: join(home, "npm-cache"),
  });
}, 60_000);
afterAll(async () => {
  await npm.close();
  await registry.close();
  rmSync(home, { recursive: true, force: true });
});

const servers = () =>
  JSON.parse(readFileSync(config, "utf8")).mcpServers as Record<
    string,
    { command: string; args: string[]; origin: { package: { integrity: string } } }
  >;
const call = () =>
  runCli(["call", "echo/echo", "text=pinned", "-c", config], { cwd: home, env, timeoutMs: 90_000 });

describe("an npm server from the registry, pinned and verified", () => {
  it("add records the exact version and the tarball's integrity", async () => {
    const result = await runCliInProcess(["add", NAME, "--registry", registry.base, "-c", config, "--yes"], {
      cwd: home,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const echo = servers().echo;
    expect(echo?.command).toBe("npx");
    expect(echo?.args).toEqual(["-y", `--registry=${npm.base}`, `${PACKAGE}@1.0.0`]);
    const published = JSON.parse(await (await fetch(`${npm.base}/${PACKAGE}`)).text()).versions["1.0.0"].dist;
    expect(echo?.origin.package).toMatchObject({
      identifier: PACKAGE,
      version: "1.0.0",
      integrity: published.integrity,
    });
  }, 60_000);

  it("npx runs the verified copy: the server starts and answers", async () => {
    const result = await call();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("pinned");
    expect(npm.tarballRequests).toEqual([`/-/fixture-echo-server-1.0.0.tgz`]);
  }, 120_000);

  it("a tampered republish of that version is refused before the start, saying what changed", async () => {
    const tampered = npm.publish(PACKAGE, "1.0.0", packFixtureServer(PACKAGE, "1.0.0", "tampered"));
    // The verified copy still runs, without asking the registry: the cache is named by the recorded
    // digest and checked each start.
    const requests = npm.tarballRequests.length;
    expect((await call()).code).toBe(0);
    expect(npm.tarballRequests.length).toBe(requests);
    // Without it, the registry's new bytes are fetched and refused.
    rmSync(join(home, "cache"), { recursive: true, force: true });
    const result = await call();
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`has integrity ${tampered.integrity}`);
    expect(result.stderr).toContain(servers().echo?.origin.package.integrity);
  }, 120_000);

  it("a cached copy changed on disk is never run: the recorded bytes are fetched again", async () => {
    const original = packFixtureServer(PACKAGE, "1.0.0", "first");
    npm.publish(PACKAGE, "1.0.0", original);
    expect((await call()).code).toBe(0);
    const integrity = servers().echo?.origin.package.integrity as string;
    const cached = join(
      home,
      "cache",
      "packages",
      "npm",
      `${Buffer.from(integrity.slice(7), "base64").toString("hex")}.tgz`,
    );
    writeFileSync(cached, packFixtureServer(PACKAGE, "1.0.0", "changed on disk"));
    const requests = npm.tarballRequests.length;
    expect((await call()).code).toBe(0);
    expect(npm.tarballRequests.length).toBe(requests + 1);
    expect(createHash("sha512").update(readFileSync(cached)).digest("base64")).toBe(integrity.slice(7));
  }, 120_000);

  it("update shows the newer version with its changed variables, then rewrites the entry pinned anew", async () => {
    const newer = npm.publish(PACKAGE, "1.1.0", packFixtureServer(PACKAGE, "1.1.0", "newer"));
    registry.publish(
      entry("1.1.0", {
        environmentVariables: [{ name: "ECHO_PREFIX", description: "Prefix of each echo", default: ">" }],
      }),
    );
    const shown = await runCliInProcess(["update", "-c", config, "--dry-run", "--json"], { cwd: home, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).updates).toEqual([
      { name: "echo", from: "1.0.0", to: "1.1.0", changes: ["+ variable ECHO_PREFIX (optional)"] },
    ]);
    expect(servers().echo?.args).toContain(`${PACKAGE}@1.0.0`);
    const updated = await runCliInProcess(["update", "echo", "-c", config, "--yes"], { cwd: home, env });
    expect(updated.code, updated.stderr).toBe(0);
    expect(servers().echo?.args).toEqual(["-y", `--registry=${npm.base}`, `${PACKAGE}@1.1.0`]);
    expect(servers().echo?.origin.package.integrity).toBe(newer.integrity);
    expect((await call()).code).toBe(0);
    const again = await runCliInProcess(["update", "-c", config, "--yes"], { cwd: home, env });
    expect(again.stderr).toContain("at its latest version");
  }, 120_000);
});
