import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stdioEntry } from "../fixtures/servers/index.js";
import { connect, textOf } from "../gateway/client.js";
import { cliHome, runCli, spawnCli } from "../helpers/cli.js";

const home = cliHome({ normal: stdioEntry("normal") });

const children: ReturnType<typeof spawnCli>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `serve --http 0 --json` with `extra` flags and environment; resolves with its /mcp URL. */
async function serveHttp(
  extra: string[],
  env: Record<string, string>,
  config = home.config,
): Promise<string> {
  const child = spawnCli(["serve", "--http", "0", "--json", "-c", config, ...extra], {
    cwd: home.home,
    env: { ...home.env, ...env },
  });
  children.push(child);
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error("serve did not print its URL")), 30_000);
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
  });
}

describe("serve's admin surface from the command line", () => {
  it("--admin-tools serves the admin tools; the admin token from the environment opens GET /status", async () => {
    const url = await serveHttp(["--admin-tools", "--admin-token-env", "MY_ADMIN"], {
      MY_ADMIN: "admin-from-env",
      MCP_BRIDGE_GATEWAY_TOKENS: "client-token",
    });
    await using client = await connect(url, "2026-07-28", "client-token");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("mcp_bridge_admin_status");
    // serve answers before its upstream servers are up: the status says so until the server connected.
    const statusNow = async () =>
      JSON.parse(textOf(await client.callTool({ name: "mcp_bridge_admin_status", arguments: {} })));
    let status = await statusNow();
    for (
      let deadline = Date.now() + 20_000;
      status.servers[0]?.state === "connecting" && Date.now() < deadline;
    ) {
      await new Promise((r) => setTimeout(r, 100));
      status = await statusNow();
    }
    expect(status.servers[0]).toMatchObject({ name: "normal", state: "connected" });
    const base = url.replace(/\/mcp$/, "");
    const asClient = await fetch(`${base}/status`, { headers: { authorization: "Bearer client-token" } });
    expect(asClient.status).toBe(401);
    const asAdmin = await fetch(`${base}/status`, { headers: { authorization: "Bearer admin-from-env" } });
    expect(asAdmin.status).toBe(200);
    expect(((await asAdmin.json()) as { servers: { name: string }[] }).servers[0]?.name).toBe("normal");
  }, 60_000);

  it("without --admin-tools, no admin tools; without an admin token, no admin routes", async () => {
    const url = await serveHttp([], {});
    await using client = await connect(url, "2026-07-28", undefined);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith("mcp_bridge_admin_"))).toEqual([]);
    expect((await fetch(url.replace(/\/mcp$/, "/status"))).status).toBe(404);
  }, 60_000);

  it("the gatewayAdminTools setting turns the admin tools on as --admin-tools does", async () => {
    const config = join(home.home, "admin-settings.json");
    writeFileSync(
      config,
      JSON.stringify({ settings: { gatewayAdminTools: true }, mcpServers: { normal: stdioEntry("normal") } }),
    );
    const url = await serveHttp([], {}, config);
    await using client = await connect(url, "2026-07-28", undefined);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "mcp_bridge_admin_status",
        "mcp_bridge_admin_reload",
        "mcp_bridge_admin_restart",
      ]),
    );
  }, 60_000);

  it("refuses an admin token that is also a client token, and a named variable that is not set", async () => {
    const same = await runCli(["serve", "--http", "0", "-c", home.config], {
      cwd: home.home,
      env: { ...home.env, MCP_BRIDGE_GATEWAY_TOKENS: "one", MCP_BRIDGE_GATEWAY_ADMIN_TOKEN: "one" },
    });
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/admin token must differ/);
    expect(same.stderr).not.toContain("one\n");
    const unset = await runCli(["serve", "--http", "0", "--admin-token-env", "NOPE", "-c", home.config], {
      cwd: home.home,
      env: home.env,
    });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/NOPE/);
  }, 60_000);
});
