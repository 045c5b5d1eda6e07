import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ORIGIN_META_KEY } from "../../src/apps/gateway/forwarding/forwarded-tool.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { connect } from "./client.js";

// What a client of the gateway receives equals what the upstream sent, field for field, except the
// tool's name (made unique by the gateway). One gateway and one upstream serve every generated case.

const key = fc.stringMatching(/^[a-z][a-zA-Z0-9_./-]{0,8}$/);
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3 }),
  ),
})).value;
const meta = fc.dictionary(key, json, { minKeys: 1, maxKeys: 3 });
const icon = fc.record(
  {
    src: fc.constantFrom("https://example.com/a.png", "data:image/png;base64,AAAA"),
    mimeType: fc.constantFrom("image/png", "image/svg+xml"),
    sizes: fc.array(fc.constantFrom("16x16", "48x48", "any"), { minLength: 1, maxLength: 2 }),
    theme: fc.constantFrom("light", "dark"),
  },
  { requiredKeys: ["src"] },
);
const annotations = fc.record(
  {
    title: fc.string({ maxLength: 10 }),
    readOnlyHint: fc.boolean(),
    destructiveHint: fc.boolean(),
    idempotentHint: fc.boolean(),
    openWorldHint: fc.boolean(),
  },
  { requiredKeys: [] },
);
const toolArb = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      title: fc.string({ maxLength: 12 }),
      description: fc.string({ minLength: 1, maxLength: 30 }),
      inputSchema: fc.record({
        type: fc.constant("object"),
        properties: fc.dictionary(key, fc.record({ type: fc.constantFrom("string", "number", "boolean") }), {
          maxKeys: 2,
        }),
      }),
      outputSchema: fc.constant({ type: "object" }),
      annotations,
      icons: fc.array(icon, { minLength: 1, maxLength: 2 }),
      execution: fc.record({ taskSupport: fc.constantFrom("forbidden", "optional") }),
      _meta: meta,
    },
    { requiredKeys: ["name", "inputSchema"] },
  );
const block = fc.oneof(
  fc.record(
    { type: fc.constant("text"), text: fc.string({ maxLength: 20 }), _meta: meta },
    { requiredKeys: ["type", "text"] },
  ),
  fc.record({
    type: fc.constant("image"),
    data: fc.constant("iVBORw0KGgo="),
    mimeType: fc.constant("image/png"),
  }),
  fc.record(
    {
      type: fc.constant("resource_link"),
      uri: fc.constant("ui://scripted/app.html"),
      name: fc.string({ minLength: 1, maxLength: 8 }),
      _meta: meta,
    },
    { requiredKeys: ["type", "uri", "name"] },
  ),
  fc.record({
    type: fc.constant("resource"),
    resource: fc.record({ uri: fc.constant("scripted://listed"), text: fc.string({ maxLength: 10 }) }),
  }),
);
const resultArb = (withOutputSchema: boolean) =>
  fc.record(
    {
      content: fc.array(block, { maxLength: 3 }),
      structuredContent: fc.dictionary(key, json, { maxKeys: 3 }),
      isError: fc.boolean(),
      _meta: meta,
    },
    { requiredKeys: withOutputSchema ? ["content", "structuredContent"] : ["content"] },
  );
const caseArb = toolArb("target").chain((tool) =>
  resultArb(tool.outputSchema !== undefined).map((result) => ({ tool, result })),
);

/** As it travels: JSON (no -0, no undefined). */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("the gateway forwards what the upstream sent", () => {
  let bridge: Bridge;
  let gateway: Gateway;

  beforeAll(async () => {
    bridge = await startBridge({ servers: { up: inProcessEntry("returns-scripted") } });
    gateway = await startGateway({ bridge });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  it("tools and results, field for field except the tool's name and its origin in _meta (property, 100 runs)", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const script = bridge.tools().find((t) => t.tool === "script")?.name ?? "";
    await fc.assert(
      fc.asyncProperty(caseArb, async (generated) => {
        const { tool, result } = wire(generated);
        await client.callTool({ name: script, arguments: { tools: [tool], result } });
        await bridge.refreshTools("up");
        const exposed = bridge.tools().find((t) => t.tool === "target")?.name ?? "";
        const listed = (await client.listTools()).tools.find((t) => t.name === exposed);
        // Plus its origin, under the gateway's namespaced _meta key.
        const origin = { [ORIGIN_META_KEY]: { server: "up", tool: "target" } };
        expect(listed).toEqual({ ...tool, name: exposed, _meta: { ...tool._meta, ...origin } });
        const received = await client.callTool({ name: exposed, arguments: {} });
        expect(received).toEqual(result);
      }),
      { numRuns: 100 },
    );
  });

  it("an upstream error result keeps its content blocks, structuredContent and _meta", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const script = bridge.tools().find((t) => t.tool === "script")?.name ?? "";
    const result: CallToolResult = {
      content: [
        { type: "text", text: "quota exceeded" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
      structuredContent: { code: 429, retryAfter: 30 },
      isError: true,
      _meta: { "vendor.example/trace": "abc" },
    };
    const tool: Tool = { name: "target", inputSchema: { type: "object" } };
    await client.callTool({ name: script, arguments: { tools: [tool], result } });
    await bridge.refreshTools("up");
    const exposed = bridge.tools().find((t) => t.tool === "target")?.name ?? "";
    expect(await client.callTool({ name: exposed, arguments: {} })).toEqual(result);
  });

  // 2025-11-25: the 2026-07-28 wire has no `execution` field (the SDK drops it for that era).
  it("an MCP Apps tool keeps _meta.ui, icons, title and execution, and its ui:// resource is readable", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const app = (await client.listTools()).tools.find((t) => t.name.endsWith("app"));
    expect(app).toMatchObject({
      title: "An app",
      _meta: { ui: { resourceUri: "ui://scripted/app.html" }, "vendor.example/key": { kept: true } },
      icons: [{ src: "https://example.com/app.png", mimeType: "image/png", sizes: ["48x48"] }],
      execution: { taskSupport: "forbidden" },
    });
    const uri = String((app?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri);
    // Not listed by its server: the gateway finds it through the tool that names it.
    const read = await client.readResource({ uri });
    expect(read).toEqual({
      contents: [
        {
          uri,
          mimeType: "text/html;profile=mcp-app",
          text: "<html><body>app</body></html>",
          _meta: { ui: { prefersBorder: true, csp: { connectDomains: ["https://api.example.com"] } } },
        },
      ],
      _meta: { "vendor.example/read": "yes" },
    });
  });

  it("resources and prompts keep every field their server sent", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const { resources } = await client.listResources();
    // The gateway's own status resource comes after the upstream's (upstream-status.test.ts covers it).
    expect(resources.at(-1)?.uri).toBe("mcp-bridge://status");
    expect(resources.slice(0, -1)).toEqual([
      {
        uri: "scripted://listed",
        name: "listed",
        title: "Listed",
        description: "A listed resource",
        mimeType: "text/plain",
        size: 6,
        annotations: { audience: ["user"], priority: 0.5 },
        icons: [{ src: "https://example.com/r.png" }],
        _meta: { "vendor.example/resource": 1 },
      },
    ]);
    const [prompt] = (await client.listPrompts()).prompts;
    expect(prompt).toEqual({
      name: prompt?.name,
      title: "Greet",
      description: "Says hello",
      arguments: [{ name: "who", description: "Whom to greet", required: false }],
      icons: [{ src: "https://example.com/p.png" }],
      _meta: { "vendor.example/prompt": [1, 2] },
    });
    expect(await client.getPrompt({ name: prompt?.name ?? "", arguments: {} })).toEqual({
      description: "Greeting",
      messages: [
        { role: "user", content: { type: "text", text: "hello", _meta: { "vendor.example/m": 1 } } },
      ],
      _meta: { "vendor.example/get": true },
    });
  });
});
