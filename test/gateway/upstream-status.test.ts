import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { until } from "../helpers/wait.js";
import { connect, textOf } from "./client.js";

const STATUS = "mcp-bridge://status";
const ADMIN = ["mcp_bridge_admin_status", "mcp_bridge_admin_reload", "mcp_bridge_admin_restart"];
const ADMIN_TOKEN = "admin-secret-token";

interface Row {
  name: string;
  state: string;
  transport: string;
  toolCount: number;
  restarts: number;
  pid?: number;
  protocolVersion?: string;
  lastError?: { code: string; message: string };
}

describe("upstream status and control of the gateway", () => {
  let bridge: Bridge;
  let plain: Gateway;
  let admin: Gateway;

  beforeAll(async () => {
    bridge = await startBridge({
      servers: {
        normal: stdioEntry("normal"),
        broken: stdioEntry("exits-at-start", { restart: { enabled: false } }),
        crashy: stdioEntry("crash-on-tool"),
      },
    });
    await bridge.ready();
    const tokens = [
      { token: "all-token", client: "all" },
      { token: "normal-only-token", client: "normal-only", profile: { servers: ["normal"] } },
      {
        token: "operator-token",
        client: "operator",
        profile: { servers: ["normal", "crashy"], admin: true },
      },
    ];
    plain = await startGateway({ bridge, tokens });
    admin = await startGateway({ bridge, tokens, adminTools: true, adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await plain?.close();
    await admin?.close();
    await bridge?.close();
  });

  const readStatus = async (client: Awaited<ReturnType<typeof connect>>) => {
    const read = await client.readResource({ uri: STATUS });
    const part = read.contents[0] as { text: string; mimeType?: string };
    expect(part.mimeType).toBe("application/json");
    return (JSON.parse(part.text) as { servers: Row[] }).servers;
  };

  it("lists and serves mcp-bridge://status: state, tools, last error, restarts, pid, transport", async () => {
    await using client = await connect(plain.url, "2025-11-25", "all-token");
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(STATUS);
    const rows = await readStatus(client);
    expect(rows.map((r) => r.name).sort()).toEqual(["broken", "crashy", "normal"]);
    const normal = rows.find((r) => r.name === "normal");
    expect(normal).toMatchObject({ state: "connected", transport: "stdio", restarts: 0 });
    expect(normal?.toolCount).toBeGreaterThan(0);
    expect(typeof normal?.pid).toBe("number");
    expect(typeof normal?.protocolVersion).toBe("string");
    const broken = rows.find((r) => r.name === "broken");
    expect(broken?.state).toBe("failed");
    expect(broken?.lastError?.code).toBe("SERVER_START_FAILED");
    expect(broken?.lastError?.message).toMatch(/broken/);
  });

  it("shows a client only the servers its profile lets it see", async () => {
    await using client = await connect(plain.url, "2026-07-28", "normal-only-token");
    expect((await readStatus(client)).map((r) => r.name)).toEqual(["normal"]);
  });

  it("sends resources/updated to a subscriber when a server crashes and recovers", async () => {
    await using client = await connect(plain.url, "2025-11-25", "all-token");
    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: STATUS });
    const before = (await readStatus(client)).find((r) => r.name === "crashy");
    expect(before?.state).toBe("connected");
    await client.callTool({ name: "mcp_crashy_crash", arguments: {} });
    await until(() => updates.length > 0, 20_000);
    expect(updates.every((u) => u === STATUS)).toBe(true);
    // Recovered: connected again with one more restart and a new process.
    await until(
      () => bridge.server("crashy")?.state === "connected" && bridge.server("crashy")?.restarts === 1,
      20_000,
    );
    const crashyNow = async () => (await readStatus(client)).find((r) => r.name === "crashy");
    await until(() => updates.length >= 2, 20_000);
    expect(await crashyNow()).toMatchObject({ state: "connected", restarts: 1 });
    expect((await crashyNow())?.pid).not.toBe(before?.pid);
  });

  it("serves no admin tools unless asked", async () => {
    await using client = await connect(plain.url, "2025-11-25", "all-token");
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ADMIN) expect(names).not.toContain(name);
    await expect(client.callTool({ name: ADMIN[0] as string, arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it("serves admin tools to a client without a profile or with admin: true, and to no other", async () => {
    await using all = await connect(admin.url, "2026-07-28", "all-token");
    const names = (await all.listTools()).tools.map((t) => t.name);
    for (const name of ADMIN) expect(names).toContain(name);
    const status = JSON.parse(textOf(await all.callTool({ name: "mcp_bridge_admin_status", arguments: {} })));
    expect(status.servers.map((r: Row) => r.name).sort()).toEqual(["broken", "crashy", "normal"]);

    await using limited = await connect(admin.url, "2026-07-28", "normal-only-token");
    const seen = (await limited.listTools()).tools.map((t) => t.name);
    for (const name of ADMIN) expect(seen).not.toContain(name);
    await expect(
      limited.callTool({ name: "mcp_bridge_admin_restart", arguments: { server: "normal" } }),
    ).rejects.toThrow(/Unknown tool/);

    await using operator = await connect(admin.url, "2025-11-25", "operator-token");
    const pid = bridge.server("normal")?.pid;
    const restarted = await operator.callTool({
      name: "mcp_bridge_admin_restart",
      arguments: { server: "normal" },
    });
    expect(restarted.isError).toBeFalsy();
    expect(JSON.parse(textOf(restarted))).toMatchObject({ name: "normal", state: "connected" });
    expect(bridge.server("normal")?.pid).not.toBe(pid);
    // A server outside the operator's profile is unknown to it.
    const hidden = await operator.callTool({
      name: "mcp_bridge_admin_restart",
      arguments: { server: "broken" },
    });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toMatch(/Unknown server "broken"/);
    const reloaded = await operator.callTool({ name: "mcp_bridge_admin_reload", arguments: {} });
    expect(JSON.parse(textOf(reloaded))).toHaveProperty("unchanged");
  });

  it("answers GET /status, POST /reload and POST /restart/{server} to the admin token only", async () => {
    const base = (g: Gateway) => g.url.replace(/\/mcp$/, "");
    const call = (g: Gateway, path: string, token?: string, method = "GET") =>
      fetch(`${base(g)}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    // Without an admin token configured, the routes do not exist, whoever asks.
    expect((await call(plain, "/status", "all-token")).status).toBe(404);
    expect((await call(plain, "/reload", ADMIN_TOKEN, "POST")).status).toBe(404);
    // With one: neither no token nor a client token opens them.
    expect((await call(admin, "/status")).status).toBe(401);
    const refused = await call(admin, "/status", "all-token");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("content-type")).toMatch(/json/);
    expect((await call(admin, "/restart/normal", "operator-token", "POST")).status).toBe(401);
    // And the admin token does not open /mcp.
    expect((await call(admin, "/mcp", ADMIN_TOKEN, "POST")).status).toBe(401);

    const status = await call(admin, "/status", ADMIN_TOKEN);
    expect(status.status).toBe(200);
    const body = (await status.json()) as { servers: Row[] };
    expect(body.servers.map((r) => r.name).sort()).toEqual(["broken", "crashy", "normal"]);
    expect((await call(admin, "/status", ADMIN_TOKEN, "POST")).status).toBe(405);
    const reload = await call(admin, "/reload", ADMIN_TOKEN, "POST");
    expect(reload.status).toBe(200);
    expect(await reload.json()).toHaveProperty("unchanged");
    const restart = await call(admin, "/restart/normal", ADMIN_TOKEN, "POST");
    expect(restart.status).toBe(200);
    expect(await restart.json()).toMatchObject({ name: "normal", state: "connected" });
    const unknown = await call(admin, "/restart/nope", ADMIN_TOKEN, "POST");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/nope/);
    expect((await call(admin, "/restart/%E0%A4%A", ADMIN_TOKEN, "POST")).status).toBe(404);
    const failing = await call(admin, "/restart/broken", ADMIN_TOKEN, "POST");
    expect(failing.status).toBe(502);
    expect(((await failing.json()) as { message: string }).message).toMatch(/broken/);
  });
});
