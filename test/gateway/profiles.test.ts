import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, type GatewayProfile, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";
import { connect } from "./client.js";

/** Two real servers; "charlie" is the server that does not exist. */
const SERVERS = ["alpha", "bravo"] as const;
const NOWHERE = "charlie";
type Server = (typeof SERVERS)[number] | typeof NOWHERE;

const tool = (s: Server) => `mcp_${s}_ping`;

/** Every profile over the two servers and their tools, and no profile at all. */
const PROFILES: (GatewayProfile | undefined)[] = [undefined];
for (const servers of [undefined, [], ["alpha"], ["bravo"], ["alpha", "bravo"]]) {
  for (const tools of [undefined, [], [tool("alpha")], [tool("bravo")], [tool("alpha"), tool("bravo")]]) {
    PROFILES.push({ ...(servers ? { servers } : {}), ...(tools ? { tools } : {}) });
  }
}

/** The rule under test, written out independently of the gateway's code. */
const reachesTool = (p: GatewayProfile | undefined, s: Server) =>
  !p || ((!p.servers || p.servers.includes(s)) && (!p.tools || p.tools.includes(tool(s))));
const reachesSurface = (p: GatewayProfile | undefined, s: Server) =>
  !p || (p.servers ? p.servers.includes(s) : p.tools === undefined);

const LISTS = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"] as const;
const ITEMS = [
  "tools/call",
  "resources/read doc",
  "resources/read item",
  "resources/subscribe",
  "prompts/get",
  "completion/complete prompt",
  "completion/complete template",
] as const;
type Item = (typeof ITEMS)[number];

const dir = tempDirs("gateway-profiles-");

describe("a profile is an allowlist of everything a client may reach", () => {
  let records: string;
  let bridge: Bridge;
  let gateway: Gateway;
  /** The exposed name of each server's prompt `greet_<server>`. */
  const promptName = new Map<Server, string>();
  const clients = new Map<number, Client & AsyncDisposable>();

  beforeAll(async () => {
    records = join(dir(), "records.txt");
    writeFileSync(records, "");
    const entry = (id: string) => inProcessEntry("records-requests", {}, ["--id", id, "--record", records]);
    bridge = await startBridge({ servers: { alpha: entry("alpha"), bravo: entry("bravo") } });
    gateway = await startGateway({
      bridge,
      tokens: PROFILES.map((profile, i) => ({ token: `token-${i}`, client: `client-${i}`, profile })),
    });
    const all = await client(0);
    for (const { name } of (await all.listPrompts()).prompts) {
      for (const s of SERVERS) if (name.includes(`greet_${s}`)) promptName.set(s, name);
    }
    const bravo = promptName.get("bravo") ?? "";
    promptName.set(NOWHERE, bravo.replaceAll("bravo", NOWHERE));
    expect(promptName.size).toBe(3);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients.values()) await c[Symbol.asyncDispose]();
    await gateway?.close();
    await bridge?.close();
  });

  async function client(i: number): Promise<Client & AsyncDisposable> {
    let c = clients.get(i);
    if (!c) {
      c = await connect(gateway.url, "2025-11-25", `token-${i}`);
      clients.set(i, c);
    }
    return c;
  }

  /** What the client gets: the result, or the error as the client sees it (code and message). */
  async function outcome(c: Client, item: Item, s: Server): Promise<unknown> {
    const prompt = promptName.get(s) ?? "";
    const ask = (): Promise<unknown> => {
      switch (item) {
        case "tools/call":
          return c.callTool({ name: tool(s), arguments: {} });
        case "resources/read doc":
          return c.readResource({ uri: `${s}://doc` });
        case "resources/read item":
          return c.readResource({ uri: `${s}://items/1` });
        case "resources/subscribe":
          return c.subscribeResource({ uri: `${s}://doc` });
        case "prompts/get":
          return c.getPrompt({ name: prompt, arguments: { who: "ann" } });
        case "completion/complete prompt":
          return c.complete({
            ref: { type: "ref/prompt", name: prompt },
            argument: { name: "who", value: "a" },
          });
        case "completion/complete template":
          return c.complete({
            ref: { type: "ref/resource", uri: `${s}://items/{n}` },
            argument: { name: "n", value: "1" },
          });
      }
    };
    try {
      return { result: await ask() };
    } catch (error) {
      const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
      return { error: { code, message, data } };
    }
  }

  const reached = () => {
    const lines = readFileSync(records, "utf8").split("\n").filter(Boolean);
    writeFileSync(records, "");
    return lines;
  };

  it("lists only what the profile allows, reaches nothing else upstream, and answers the rest as nonexistent", async () => {
    const request = fc.oneof(
      fc.record({ list: fc.constantFrom(...LISTS) }),
      fc.record({ item: fc.constantFrom(...ITEMS), server: fc.constantFrom(...SERVERS) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.nat(PROFILES.length - 1), request, async (i, req) => {
        const profile = PROFILES[i];
        const c = await client(i);
        reached();
        if ("list" in req) {
          const names = await listed(c, req.list);
          for (const s of SERVERS) {
            const allowed = req.list === "tools/list" ? reachesTool(profile, s) : reachesSurface(profile, s);
            expect(
              names.some((n) => n.includes(s)),
              `${req.list} shows ${s}`,
            ).toBe(allowed);
          }
          expect(reached()).toEqual([]);
          return;
        }
        const { item, server } = req;
        const allowed =
          item === "tools/call" ? reachesTool(profile, server) : reachesSurface(profile, server);
        const got = await outcome(c, item, server);
        const upstream = reached();
        if (allowed) {
          expect(got, `${item} on ${server}`).toHaveProperty("result");
          expect(upstream.every((line) => line.startsWith(`${server} `))).toBe(true);
          if (item !== "resources/subscribe") expect(upstream.length).toBeGreaterThan(0);
          return;
        }
        expect(upstream, `${item} on ${server} reached upstream`).toEqual([]);
        const nowhere = await outcome(c, item, NOWHERE);
        expect(reached()).toEqual([]);
        expect(JSON.stringify(got)).toBe(JSON.stringify(nowhere).replaceAll(NOWHERE, server));
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("answers a 2026-07-28 read outside the profile byte for byte as a read of nothing", async () => {
    // Token 11: servers ["alpha"] (see PROFILES).
    expect(PROFILES[11]).toEqual({ servers: ["alpha"] });
    const read = async (uri: string) => {
      const response = await fetch(gateway.url, {
        method: "POST",
        headers: {
          authorization: "Bearer token-11",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "resources/read",
          "mcp-name": uri,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: {
            uri,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientCapabilities": {},
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            },
          },
        }),
      });
      return `${response.status} ${await response.text()}`;
    };
    reached();
    const outside = await read("bravo://doc");
    const nothing = await read("charlie://doc");
    expect(reached()).toEqual([]);
    expect(outside).toBe(nothing.replaceAll("charlie", "bravo"));
    expect(outside).toContain("Resource not found");
    expect(await read("alpha://doc")).toContain("doc of alpha");
  });

  async function listed(c: Client, list: (typeof LISTS)[number]): Promise<string[]> {
    switch (list) {
      case "tools/list":
        return (await c.listTools()).tools.map((t) => t.name);
      case "resources/list":
        return (await c.listResources()).resources.map((r) => r.uri);
      case "resources/templates/list":
        return (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      case "prompts/list":
        return (await c.listPrompts()).prompts.map((p) => p.name);
    }
  }
});
