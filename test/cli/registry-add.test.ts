import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseImage } from "../../src/apps/cli/mcp-registry/oci-digest.js";
import { cliEnv, emptyHome, preloadCliInProcess, runCliInProcess } from "../helpers/cli.js";
import { listen } from "../helpers/http-servers.js";
import { REAL_ENTRIES, startTestRegistry, type TestRegistry } from "../helpers/mcp-registry.js";

/**
 * `mcp-bridge search` and `add REGISTRY-NAME` against a registry API on 127.0.0.1 serving real
 * entries of the registry's reference: the package this machine can run is chosen by the runners on
 * PATH, the command line is built from the declared arguments, secrets are written as `${VAR}`, and
 * hostile entries are refused before anything is written.
 */

preloadCliInProcess();
let registry: TestRegistry;
const homes: string[] = [];
beforeAll(async () => {
  registry = await startTestRegistry();
});
afterAll(async () => {
  await registry.close();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A home with a config, and a PATH holding only the given runners (empty executables). */
function setup(runners: string[]) {
  const home = emptyHome();
  homes.push(home);
  const bin = join(home, "bin");
  mkdirSync(bin);
  for (const runner of runners) {
    writeFileSync(join(bin, runner), "");
    chmodSync(join(bin, runner), 0o755);
  }
  const file = join(home, "mcp.json");
  writeFileSync(file, '{ "mcpServers": {} }\n');
  const env = { ...cliEnv(home), PATH: bin };
  const run = (...args: string[]) =>
    runCliInProcess(["add", "-c", file, "--registry", registry.base, ...args], { cwd: home, env });
  const servers = () =>
    JSON.parse(readFileSync(file, "utf8")).mcpServers as Record<string, Record<string, unknown>>;
  return { home, file, env, run, servers };
}

describe("OCI references", () => {
  it.each([
    [
      "docker.io/mcp/filesystem:1.0.2",
      { host: "registry-1.docker.io", repository: "mcp/filesystem", tag: "1.0.2" },
    ],
    ["postgres:16", { host: "registry-1.docker.io", repository: "library/postgres", tag: "16" }],
    ["ghcr.io/o/r/s:1", { host: "ghcr.io", repository: "o/r/s", tag: "1" }],
    ["127.0.0.1:5000/x", { host: "127.0.0.1:5000", repository: "x", tag: "latest" }],
  ])("%s", (identifier, expected) => {
    expect(parseImage(identifier)).toEqual(expected);
  });
});

describe("search", () => {
  it("lists the latest version of each server whose name holds the query", async () => {
    const { home, env } = setup([]);
    const result = await runCliInProcess(["search", "filesystem", "--registry", registry.base, "--json"], {
      cwd: home,
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const servers = JSON.parse(result.stdout).servers;
    expect(servers).toEqual([
      expect.objectContaining({
        name: "io.github.modelcontextprotocol/filesystem",
        version: "1.0.2",
        runs: "npm, oci",
      }),
    ]);
    expect(registry.requests.at(-1)).toContain("/v0.1/servers?search=filesystem&version=latest");
  });

  it("follows the registry's cursor across pages", async () => {
    const { home, env } = setup([]);
    const result = await runCliInProcess(
      ["search", "io.", "--registry", registry.base, "--limit", "4", "--json"],
      {
        cwd: home,
        env,
      },
    );
    expect(JSON.parse(result.stdout).servers).toHaveLength(4);
  });
});

describe("add REGISTRY-NAME", () => {
  it("installs a PyPI server with uvx, pinned, its secret as ${VAR} and its optional variable listed", async () => {
    const { run, servers } = setup(["uvx"]);
    const result = await run("io.github.example/weather-mcp", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(servers()["weather-mcp"]).toEqual({
      command: "uvx",
      args: ["weather-mcp-server@0.5.0"],
      env: { WEATHER_API_KEY: "${WEATHER_API_KEY}" },
      origin: {
        registry: registry.base,
        name: "io.github.example/weather-mcp",
        version: "0.5.0",
        package: {
          type: "pypi",
          identifier: "weather-mcp-server",
          version: "0.5.0",
          registryBaseUrl: "https://pypi.org",
        },
      },
    });
    expect(result.stderr).toContain(
      "optional WEATHER_UNITS: Temperature units (celsius, fahrenheit) (default celsius)",
    );
    expect(result.stderr).toContain("Set WEATHER_API_KEY in the environment before starting it");
  });

  it("chooses the OCI image with docker when npx is missing, by digest, with its mounts from --var", async () => {
    // An OCI registry on 127.0.0.1 asking for an anonymous bearer token, as Docker Hub does.
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.index.v1+json",
      manifests: [],
    });
    const digest = `sha256:${createHash("sha256").update(manifest).digest("hex")}`;
    await using oci = await listen((req, res) => {
      if (req.url?.startsWith("/token")) return res.end(JSON.stringify({ token: "anonymous" }));
      if (req.headers.authorization !== "Bearer anonymous") {
        const realm = `http://${req.headers.host}/token`;
        res.writeHead(401, {
          "www-authenticate": `Bearer realm="${realm}",service="test",scope="repository:mcp/filesystem:pull"`,
        });
        return res.end();
      }
      if (req.url !== "/v2/mcp/filesystem/manifests/1.0.2") return res.writeHead(404).end();
      res.writeHead(200, {
        "content-type": "application/vnd.oci.image.index.v1+json",
        "docker-content-digest": digest,
      });
      res.end(manifest);
    }, "");
    const host = new URL(oci.url).host;
    const real = REAL_ENTRIES.find(
      (e) => e.server.name === "io.github.modelcontextprotocol/filesystem",
    )?.server;
    const image = `${host}/mcp/filesystem:1.0.2`;
    const local = JSON.parse(JSON.stringify(real).replaceAll("docker.io/mcp/filesystem:1.0.2", image));
    registry.publish({ ...local, name: "io.github.fixture/filesystem-oci" });
    const { run, servers } = setup(["docker"]);
    const result = await run(
      "io.github.fixture/filesystem-oci@1.0.2",
      "--var",
      "source_path=/srv/data",
      "--yes",
    );
    expect(result.code, result.stderr).toBe(0);
    expect(servers()["filesystem-oci"]).toMatchObject({
      command: "docker",
      args: [
        "run",
        "-i",
        "--rm",
        "--mount",
        "type=bind,src=/srv/data,dst=/project",
        `${image}@${digest}`,
        "/project",
      ],
      origin: { package: { type: "oci", identifier: image, digest } },
    });
  });

  it("uses the remote endpoint with --remote", async () => {
    const { run, servers } = setup([]);
    const result = await run("io.modelcontextprotocol.anonymous/mcp-fs", "--remote", "--yes");
    expect(result.code, result.stderr).toBe(0);
    expect(servers()["mcp-fs"]).toMatchObject({
      type: "http",
      url: "https://mcp-fs.anonymous.modelcontextprotocol.io/http",
    });
  });

  it("says which runners would do when none is installed, and suggests --remote when there is an endpoint", async () => {
    const { run, servers } = setup([]);
    const result = await run("io.github.joelverhagen/knapcode-samplemcpserver", "--yes");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("nuget (dnx)");
    expect(servers()).toEqual({});
  });

  it("needs a required value: given with --var, else refused without a terminal", async () => {
    const { run, servers } = setup(["dnx"]);
    const missing = await run("io.github.joelverhagen/knapcode-samplemcpserver", "--yes");
    expect(missing.stderr).toContain("--var WEATHER_CHOICES=VALUE");
    const given = await run(
      "io.github.joelverhagen/knapcode-samplemcpserver",
      "--var",
      "WEATHER_CHOICES=sunny,rainy",
      "--yes",
    );
    expect(given.code, given.stderr).toBe(0);
    expect(servers()["knapcode-samplemcpserver"]).toMatchObject({
      command: "dnx",
      args: ["Knapcode.SampleMcpServer@0.5.0", "--yes", "--"],
      env: { WEATHER_CHOICES: "sunny,rainy" },
    });
  });

  it("asks before writing: without a terminal and without --yes nothing is written; --dry-run writes nothing", async () => {
    const { run, servers } = setup(["uvx"]);
    const refused = await run("io.github.example/weather-mcp");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--yes");
    const dry = await run("io.github.example/weather-mcp", "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain("runs: uvx weather-mcp-server@0.5.0");
    expect(servers()).toEqual({});
  });

  it("names a missing server or version", async () => {
    const { run } = setup(["uvx"]);
    const result = await run("io.github.example/weather-mcp@9.9.9", "--yes");
    expect(result.stderr).toContain("No registry has io.github.example/weather-mcp@9.9.9");
  });
});

describe("add REGISTRY-NAME: a registry entry is hostile input", () => {
  const hostile = (name: string, pkg: Record<string, unknown>) => ({
    name,
    description: "hostile",
    version: "1.0.0",
    packages: [
      {
        registryType: "pypi",
        identifier: "good-name",
        version: "1.0.0",
        transport: { type: "stdio" },
        ...pkg,
      },
    ],
  });

  it.each([
    [
      "an identifier that is an option of the runner",
      { identifier: "--index-url=http://evil" },
      "is not a pypi name",
    ],
    ["a version range", { version: "^1.0.0" }, "is not one exact version"],
    ["the tag latest", { version: "latest" }, "is not one exact version"],
    [
      "runtime arguments for uvx",
      { runtimeArguments: [{ type: "named", name: "--with", value: "evil" }] },
      "runtime arguments for uvx",
    ],
    [
      "a variable name with a path in it",
      { environmentVariables: [{ name: "../X", value: "1" }] },
      "is not a name",
    ],
    [
      "a control character in a value",
      { environmentVariables: [{ name: "X", value: "a\u001b]0;owned\u0007" }] },
      "control characters",
    ],
    ["mcp-bridge itself", { identifier: "mcp-bridge" }, "inside itself"],
  ])("refuses %s", async (_what, pkg, message) => {
    const name = `io.github.evil/case-${Math.random().toString(36).slice(2, 8)}`;
    registry.publish(hostile(name, pkg));
    const { run, servers } = setup(["uvx"]);
    const result = await run(name, "--yes");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(message);
    expect(servers()).toEqual({});
  });

  it("refuses docker options beyond environment and mounts (--network host)", async () => {
    const { run, servers } = setup(["docker"]);
    const result = await run(
      "io.github.example/database-manager",
      "--var",
      "db_type=postgres",
      "--var",
      "DB_USERNAME=u",
      "--var",
      "database_name=d",
      "--yes",
    );
    expect(result.stderr).toContain("runtime option --network");
    expect(servers()).toEqual({});
  });

  it("refuses an answer for another server, a name that is not a registry name, and an oversized answer", async () => {
    const { run } = setup(["uvx"]);
    registry.override(
      `/v0.1/servers/${encodeURIComponent("io.github.evil/other")}/versions/latest`,
      JSON.stringify({ server: { name: "io.github.evil/impostor", version: "1.0.0" } }),
    );
    expect((await run("io.github.evil/other", "--yes")).stderr).toContain(
      'answered for "io.github.evil/impostor"',
    );
    expect((await run("io.github.evil/../../x", "--yes")).stderr).toContain("not a registry name");
    registry.override(
      `/v0.1/servers/${encodeURIComponent("io.github.evil/huge")}/versions/latest`,
      `{"server":{"name":"io.github.evil/huge","version":"1.0.0","description":"${"x".repeat(5 * 1024 * 1024)}"}}`,
    );
    expect((await run("io.github.evil/huge", "--yes")).stderr).toContain("bytes once decoded");
  });
});
