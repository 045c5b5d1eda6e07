import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toGeminiTools } from "../../src/adapters/gemini.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { cliHome, runCliInProcess } from "../helpers/cli.js";
import { connect, textOf } from "./client.js";

/** The REST face of a real gateway over real fixture servers, spoken to with plain fetch. */

const SERVERS = {
  calc: stdioEntry("normal"),
  kinds: stdioEntry("content-types"),
  docs: stdioEntry("records-requests", {}, ["--id", "docs"]),
};

let bridge: Bridge;
let open: Gateway;
let base: string;

/** The exposed name of `tool` of `server`, as the bridge names it. */
function nameOf(server: string, tool: string): string {
  const found = bridge.tools().find((t) => t.server === server && t.tool === tool);
  if (!found) throw new Error(`no tool ${server}/${tool}`);
  return found.name;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

beforeAll(async () => {
  bridge = await startBridge({ servers: SERVERS });
  open = await startGateway({ bridge, maxBodyBytes: 64 * 1024 });
  base = open.url.replace(/\/mcp$/, "");
}, 60_000);

afterAll(async () => {
  await open?.close();
  await bridge?.close();
});

describe("POST /tools/{name}", () => {
  it("answers a call with the LLM text, isError, content and structuredContent", async () => {
    const add = await post(`${base}/tools/${nameOf("calc", "add")}`, { a: 2, b: 3 });
    expect(add.status).toBe(200);
    expect(add.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await add.json()).toEqual({ text: "5", isError: false, content: [{ type: "text", text: "5" }] });

    const divide = await post(`${base}/tools/${nameOf("calc", "divide")}`, { a: 6, b: 3 });
    expect(divide.status).toBe(200);
    expect(await divide.json()).toMatchObject({ isError: false, structuredContent: { quotient: 2 } });
  });

  it("returns an isError result with the tool's own content, not an HTTP error", async () => {
    const res = await post(`${base}/tools/${nameOf("kinds", "fails")}`, {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { isError: boolean; content: unknown; text: string };
    expect(body.isError).toBe(true);
    expect(body.content).toEqual([{ type: "text", text: "the thing went wrong" }]);
    expect(body.text).toContain("the thing went wrong");
  });

  it("answers an unknown tool 404, bad arguments 422, a malformed body 400, a huge one 413", async () => {
    const unknown = await post(`${base}/tools/no_such_tool`, {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: { code: "TOOL_NOT_FOUND", message: expect.stringContaining("no_such_tool") },
    });

    const invalid = await post(`${base}/tools/${nameOf("calc", "add")}`, { a: "two", b: 3 });
    expect(invalid.status).toBe(422);
    const problem = (await invalid.json()) as { error: { code: string; message: string } };
    expect(problem.error.code).toBe("INVALID_ARGUMENTS");
    expect(problem.error.message).toMatch(/a/);

    for (const body of ["[1, 2]", "not json", '"text"', "null"]) {
      const bad = await post(`${base}/tools/${nameOf("calc", "add")}`, body);
      expect(bad.status, body).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("BAD_REQUEST");
    }

    const huge = await post(`${base}/tools/${nameOf("calc", "echo")}`, { text: "x".repeat(100_000) });
    expect(huge.status).toBe(413);
    const tooLarge = (await huge.json()) as { error: { message: string } };
    expect(tooLarge.error.message).toContain(String(64 * 1024));
  });

  it("answers other methods 405 with Allow, unknown paths 404, all as JSON errors", async () => {
    const get = await fetch(`${base}/tools/${nameOf("calc", "add")}`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(((await get.json()) as { error: { code: string } }).error.code).toBe("BAD_REQUEST");

    const del = await fetch(`${base}/openapi.json`, { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET");

    const nowhere = await fetch(`${base}/tools/a/b`);
    expect(nowhere.status).toBe(404);
    expect(await nowhere.json()).toEqual({ error: { code: "BAD_REQUEST", message: expect.any(String) } });
  });

  it("refuses a Host a loopback gateway does not answer to (DNS rebinding), as /mcp does", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/openapi.json`, { headers: { host: "evil.example:80" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe("GET /tools?format=", () => {
  it("prints exactly what `mcp-bridge tools --format openai|anthropic --json` prints", async () => {
    const home = cliHome(SERVERS);
    for (const format of ["openai", "anthropic"]) {
      const cli = await runCliInProcess(["tools", "--format", format, "--json", "-c", home.config], {
        cwd: home.home,
        env: home.env,
      });
      expect(cli.code, cli.stderr).toBe(0);
      const res = await fetch(`${base}/tools?format=${format}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(JSON.parse(cli.stdout));
    }
  }, 30_000);

  it("offers gemini declarations and MCP tool definitions, and refuses an unknown format", async () => {
    const gemini = await fetch(`${base}/tools?format=gemini`);
    expect(await gemini.json()).toEqual(JSON.parse(JSON.stringify(toGeminiTools(bridge.tools()))));
    const mcp = (await (await fetch(`${base}/tools?format=mcp`)).json()) as {
      tools: { name: string; outputSchema?: unknown }[];
    };
    expect(mcp.tools.map((t) => t.name)).toEqual(bridge.tools().map((t) => t.name));
    expect(mcp.tools.find((t) => t.name === nameOf("calc", "divide"))?.outputSchema).toBeDefined();
    const unknown = await fetch(`${base}/tools?format=yaml`);
    expect(unknown.status).toBe(400);
  });
});

describe("resources and prompts", () => {
  it("lists and reads resources, lists and gets prompts", async () => {
    const listed = (await (await fetch(`${base}/resources`)).json()) as {
      resources: { uri: string; server: string }[];
    };
    expect(listed.resources).toContainEqual(expect.objectContaining({ uri: "docs://doc", server: "docs" }));

    const read = await fetch(`${base}/resources/read?uri=${encodeURIComponent("docs://doc")}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ contents: [{ uri: "docs://doc", text: "doc of docs" }] });
    const templated = await fetch(`${base}/resources/read?uri=${encodeURIComponent("docs://items/7")}`);
    expect(await templated.json()).toMatchObject({ contents: [{ text: "item 7 of docs" }] });

    const missing = await fetch(`${base}/resources/read?uri=${encodeURIComponent("docs://nothing")}`);
    expect(missing.status).toBe(404);
    const noUri = await fetch(`${base}/resources/read`);
    expect(noUri.status).toBe(400);

    const prompts = (await (await fetch(`${base}/prompts`)).json()) as { prompts: { name: string }[] };
    const greet = prompts.prompts.find((p) => p.name.includes("greet_docs"))?.name ?? "";
    expect(greet).not.toBe("");
    const got = await post(`${base}/prompts/${greet}`, { who: "ann" });
    expect(got.status).toBe(200);
    expect(JSON.stringify(await got.json())).toContain("Hello ann from docs");
    expect((await post(`${base}/prompts/no_such_prompt`, {})).status).toBe(404);
    expect((await post(`${base}/prompts/${greet}`, { who: 7 })).status).toBe(422);
  });
});

describe("auth, profiles and limits shared with /mcp", () => {
  let bridge2: Bridge;
  let gateway: Gateway;
  let url: string;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    bridge2 = await startBridge({ servers: { calc: SERVERS.calc, kinds: SERVERS.kinds } });
    const add = bridge2.tools().find((t) => t.tool === "add")?.name ?? "";
    gateway = await startGateway({
      bridge: bridge2,
      tokens: [
        { token: "full-token", client: "full" },
        { token: "narrow-token", client: "narrow", profile: { tools: [add] } },
        { token: "limited-token", client: "limited" },
      ],
      limits: { callsPerMinute: 2 },
    });
    url = gateway.url.replace(/\/mcp$/, "");
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge2?.close();
  });

  it("answers 401 without a valid token", async () => {
    for (const headers of [{}, bearer("wrong")]) {
      const res = await fetch(`${url}/openapi.json`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("AUTH");
    }
    expect((await post(`${url}/tools/anything`, {})).status).toBe(401);
  });

  it("a profile hides tools from the document and a hidden tool is answered as an unknown one", async () => {
    const add = bridge2.tools().find((t) => t.tool === "add")?.name ?? "";
    const echo = bridge2.tools().find((t) => t.tool === "echo")?.name ?? "";
    const narrow = (await (
      await fetch(`${url}/openapi.json`, { headers: bearer("narrow-token") })
    ).json()) as {
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(Object.keys(narrow.paths)).toEqual([`/tools/${add}`]);
    expect(narrow.components.securitySchemes).toHaveProperty("bearer");
    const full = (await (await fetch(`${url}/openapi.json`, { headers: bearer("full-token") })).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(full.paths)).toContain(`/tools/${echo}`);

    const hidden = await post(`${url}/tools/${echo}`, { text: "hi" }, bearer("narrow-token"));
    const unknown = await post(`${url}/tools/no_such_tool`, {}, bearer("narrow-token"));
    expect(hidden.status).toBe(404);
    const hiddenBody = (await hidden.json()) as { error: { code: string; message: string } };
    const unknownBody = (await unknown.json()) as { error: { code: string; message: string } };
    expect(hiddenBody.error.code).toBe(unknownBody.error.code);
    expect(hiddenBody.error.message.replace(echo, "X")).toBe(
      unknownBody.error.message.replace("no_such_tool", "X"),
    );

    const listed = (await (
      await fetch(`${url}/tools?format=openai`, { headers: bearer("narrow-token") })
    ).json()) as {
      function: { name: string };
    }[];
    expect(listed.map((t) => t.function.name)).toEqual([add]);
    expect(
      (await fetch(`${url}/servers/kinds/openapi.json`, { headers: bearer("narrow-token") })).status,
    ).toBe(404);
    expect((await fetch(`${url}/resources`, { headers: bearer("narrow-token") })).status).toBe(200);
    const ok = await post(`${url}/tools/${add}`, { a: 1, b: 1 }, bearer("narrow-token"));
    expect(await ok.json()).toMatchObject({ text: "2" });
  });

  it("counts REST and MCP calls against the same per-client limit: 429 past it", async () => {
    const add = bridge2.tools().find((t) => t.tool === "add")?.name ?? "";
    for (let i = 0; i < 2; i++) {
      expect((await post(`${url}/tools/${add}`, { a: i, b: 1 }, bearer("limited-token"))).status).toBe(200);
    }
    const refused = await post(`${url}/tools/${add}`, { a: 1, b: 1 }, bearer("limited-token"));
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("RATE_LIMITED");
    expect(body.error.message).toMatch(/per minute/);
    // When to come back: the 2-per-minute bucket holds a whole call again within 30 s.
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    // The same client over MCP is past its budget too, told the same in the error's data.
    await using client = await connect(gateway.url, "2025-11-25", "limited-token");
    const mcpRefusal = await client.callTool({ name: add, arguments: { a: 1, b: 1 } }).catch((e) => e);
    expect(mcpRefusal).toMatchObject({ code: -32029, message: expect.stringMatching(/per minute/) });
    expect(mcpRefusal.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(mcpRefusal.data.retryAfterSeconds).toBeLessThanOrEqual(30);
    // Another client is not.
    expect((await post(`${url}/tools/${add}`, { a: 1, b: 1 }, bearer("full-token"))).status).toBe(200);
  });
});

describe("/mcp for a 2025-era client that accepts only application/json", () => {
  const rpc = (id: number, method: string, params: unknown = {}) => ({ jsonrpc: "2.0", id, method, params });
  const initialize = rpc(1, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "json-only", version: "1" },
  });

  it("gets one JSON answer per POST, in and out of a session", async () => {
    const opened = await post(open.url, initialize, { accept: "application/json" });
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toMatch(/^application\/json/);
    const init = (await opened.json()) as { id: number; result: { serverInfo: unknown } };
    expect(init.id).toBe(1);
    expect(init.result.serverInfo).toBeDefined();
    const session = opened.headers.get("mcp-session-id") ?? "";
    expect(session).not.toBe("");
    const headers = {
      accept: "application/json",
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    expect(
      (await post(open.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status,
    ).toBe(202);
    const listed = await post(open.url, rpc(2, "tools/list"), headers);
    expect(listed.headers.get("content-type")).toMatch(/^application\/json/);
    const tools = (await listed.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(tools.id).toBe(2);
    expect(tools.result.tools.map((t) => t.name)).toContain(nameOf("calc", "add"));
    const called = await post(
      open.url,
      rpc(3, "tools/call", { name: nameOf("calc", "add"), arguments: { a: 1, b: 2 } }),
      headers,
    );
    const result = (await called.json()) as { result: { content: { text: string }[] } };
    expect(textOf(result.result)).toBe("3");
  });

  it("gets JSON without a session too (the stateless 2025-era path)", async () => {
    const res = await post(open.url, rpc(9, "tools/list"), {
      accept: "application/json",
      "mcp-protocol-version": "2025-11-25",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await res.json()) as { id: number }).id).toBe(9);
  });

  it("still streams to a client that accepts text/event-stream", async () => {
    const res = await post(open.url, initialize, { accept: "application/json, text/event-stream" });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await res.body?.cancel();
  });
});
