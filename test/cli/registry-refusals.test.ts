import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, emptyHome, runCli, runCliInProcess } from "../helpers/cli.js";
import { listen } from "../helpers/http-servers.js";
import { startTestRegistry, type TestRegistry } from "../helpers/mcp-registry.js";

/**
 * Known-bad packages and enforced registries: an OSV malware advisory (the `advisories` setting,
 * refreshed only by `advisories refresh SOURCE`) refuses a package at `add` and before every start;
 * the managed policy's `registries` refuses every server not installed from a listed registry, at load,
 * in the CLI and the library alike, however the user's config is written.
 */

const MALWARE = {
  schema_version: "1.6.0",
  id: "MAL-2025-4242",
  summary: "Malicious code in evil-weather (PyPI)",
  aliases: [],
  affected: [
    {
      package: { ecosystem: "PyPI", name: "Evil_Weather" },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }] }],
    },
  ],
};
/** An ordinary vulnerability: not malware, never a reason to refuse here. */
const VULNERABILITY = {
  id: "GHSA-xxxx-yyyy-zzzz",
  summary: "A bug",
  affected: [{ package: { ecosystem: "PyPI", name: "weather-mcp-server" }, versions: ["0.5.0"] }],
};

let registry: TestRegistry;
let home: string;
let env: Record<string, string>;
const advisories = () => join(home, "advisories");

beforeAll(async () => {
  registry = await startTestRegistry();
  registry.publish({
    name: "io.github.evil/weather",
    description: "looks fine",
    version: "1.0.0",
    packages: [
      { registryType: "pypi", identifier: "evil-weather", version: "1.0.0", transport: { type: "stdio" } },
    ],
  });
  home = emptyHome();
  mkdirSync(join(home, "bin"));
  writeFileSync(join(home, "bin", "uvx"), "");
  chmodSync(join(home, "bin", "uvx"), 0o755);
  mkdirSync(advisories());
  writeFileSync(join(advisories(), "vulns.json"), JSON.stringify([VULNERABILITY]));
  env = { ...cliEnv(home), PATH: `${join(home, "bin")}:${process.env.PATH}` };
});
afterAll(async () => {
  await registry.close();
  rmSync(home, { recursive: true, force: true });
});

function config(servers: Record<string, unknown>): string {
  const file = join(home, `mcp-${Math.random().toString(36).slice(2, 8)}.json`);
  writeFileSync(file, JSON.stringify({ settings: { advisories: advisories() }, mcpServers: servers }));
  return file;
}

/** A real fixture server that claims to be a package from the registry. */
const installed = (identifier: string, extra: Record<string, unknown> = {}) =>
  stdioEntry("normal", {
    origin: {
      registry: registry.base,
      name: `io.github.fixture/${identifier}`,
      version: "1.0.0",
      package: { type: "pypi", identifier, version: "1.0.0" },
    },
    ...extra,
  });

describe("malware advisories", () => {
  it("advisories refresh takes a file or an address the user gives, and only that", async () => {
    const file = config({});
    const source = join(home, "malware.json");
    writeFileSync(source, JSON.stringify({ vulns: [MALWARE] }));
    const local = await runCliInProcess(["advisories", "refresh", source, "-c", file], { cwd: home, env });
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain("1 malware advisory");
    await using served = await listen((_req, res) => res.end(JSON.stringify([MALWARE])), "/osv/mal.json");
    const remote = await runCliInProcess(["advisories", "refresh", served.url, "-c", file], {
      cwd: home,
      env,
    });
    expect(remote.code, remote.stderr).toBe(0);
    expect(readdirSync(advisories()).sort()).toEqual(["mal.json", "malware.json", "vulns.json"]);
    const broken = join(home, "broken.json");
    writeFileSync(broken, "{ not json");
    expect(
      (await runCliInProcess(["advisories", "refresh", broken, "-c", file], { cwd: home, env })).code,
    ).not.toBe(0);
  });

  it("add refuses a package a malware advisory names, before writing anything", async () => {
    const file = config({});
    const result = await runCliInProcess(
      ["add", "io.github.evil/weather", "--registry", registry.base, "-c", file, "--yes"],
      {
        cwd: home,
        env,
      },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("evil-weather@1.0.0 is named by the malware advisory MAL-2025-4242");
    expect(JSON.parse(readFileSync(file, "utf8")).mcpServers).toEqual({});
    // A vulnerability that is not malware does not stop an install.
    const fine = await runCliInProcess(
      ["add", "io.github.example/weather-mcp", "--registry", registry.base, "-c", file, "--yes"],
      { cwd: home, env },
    );
    expect(fine.code, fine.stderr).toBe(0);
  });

  it("a configured server whose package is malware is refused before it starts; the others run", async () => {
    const file = config({ evil: installed("evil-weather"), good: installed("good-weather") });
    const refused = await runCli(["call", "evil/echo", "text=x", "-c", file], { cwd: home, env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("MAL-2025-4242");
    const served = await runCli(["call", "good/echo", "text=still served", "-c", file], { cwd: home, env });
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain("still served");
  }, 60_000);
});

describe("enforced registries (managed policy)", () => {
  function managed(registries: unknown): Record<string, string> {
    const dir = join(home, `policy-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(dir, { mode: 0o755 });
    const file = join(dir, "policy.json");
    writeFileSync(file, JSON.stringify({ registries }), { mode: 0o644 });
    return { ...env, MCP_BRIDGE_POLICY_FILE: file };
  }

  it("refuses servers not from a listed registry, name glob and version range, in the CLI and the library", async () => {
    const policyEnv = managed([
      { url: `${registry.base}/`, servers: "io.github.fixture/*", versions: "^1.0.0" },
    ]);
    const file = config({
      allowed: installed("allowed", { command: "uvx", args: ["allowed@1.0.0"] }),
      handwritten: stdioEntry("normal"),
      // An origin its command does not run says nothing about what runs: refused.
      forged: installed("forged"),
    });
    const cli = await runCli(["call", "handwritten/echo", "text=x", "-c", file], {
      cwd: home,
      env: policyEnv,
    });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain(
      'Server "handwritten" is refused by the managed policy: it was not installed from a registry',
    );
    await using bridge = await startBridge({ config: file, env: policyEnv, wait: true });
    const states = Object.fromEntries(bridge.servers().map((s) => [s.name, s]));
    expect(states.handwritten?.state).toBe("invalid");
    expect(states.forged?.lastError?.message).toContain("does not run the package its origin names");
    expect(states.allowed?.state).not.toBe("invalid");
  }, 60_000);

  it("a version outside the range, or another registry, is refused; user config cannot loosen it", async () => {
    const policyEnv = managed([{ url: "https://registry.example.com", versions: ">=2" }]);
    const file = config({ allowed: installed("allowed", { command: "uvx", args: ["allowed@1.0.0"] }) });
    await using bridge = await startBridge({ config: file, env: policyEnv, wait: true });
    expect(bridge.servers()[0]?.lastError?.message).toContain(
      "servers must come from https://registry.example.com at >=2",
    );
  }, 60_000);

  it("a managed registries list that cannot be read refuses every server (fail closed)", async () => {
    const policyEnv = managed("not a list");
    const file = config({ handwritten: stdioEntry("normal") });
    await using bridge = await startBridge({ config: file, env: policyEnv, wait: true });
    expect(bridge.servers()[0]?.state).toBe("invalid");
  }, 60_000);
});
