import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/apps/gateway/faces/rest/openapi.js";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import type { ToolDefinition } from "../../src/registry/tool-definition.js";
import { inProcessEntry } from "../helpers/in-process.js";

/** The OpenAPI documents of the REST face, checked by a real validator (@apidevtools/swagger-parser). */

type Document = {
  openapi: string;
  paths: Record<
    string,
    {
      post: {
        operationId: string;
        summary: string;
        requestBody: unknown;
        responses: Record<string, unknown>;
      };
    }
  >;
  components: { schemas: Record<string, unknown> };
};

/** Validates a copy (the validator dereferences in place); throws with the validator's reason. */
async function validate(document: unknown): Promise<void> {
  await SwaggerParser.validate(structuredClone(document) as never);
}

describe("openApiDocument", () => {
  it("is valid OpenAPI 3.1 for schemas with local $refs, recursion and output schemas", async () => {
    const tool = (
      name: string,
      inputSchema: Record<string, unknown>,
      outputSchema?: Record<string, unknown>,
    ) =>
      ({
        name,
        server: "s",
        tool: name,
        description: `Tool ${name}\nmore`,
        inputSchema,
        outputSchema,
      }) as ToolDefinition;
    const tools = [
      tool("plain", { type: "object", properties: { a: { type: "number" } }, required: ["a"] }),
      tool("empty", { type: "object" }),
      tool("defs", {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { item: { $ref: "#/$defs/Item" } },
        $defs: {
          Item: { type: "object", properties: { next: { $ref: "#/$defs/Item" }, self: { $ref: "#" } } },
        },
      }),
      tool(
        "draft7",
        {
          type: "object",
          properties: { x: { $ref: "#/definitions/X" } },
          definitions: { X: { type: "string", enum: ["a", "b"] } },
        },
        {
          type: "object",
          properties: { y: { $ref: "#/definitions/Y" } },
          definitions: { Y: { type: "integer" } },
        },
      ),
    ];
    const document = openApiDocument({
      tools,
      origin: "http://127.0.0.1:1",
      version: "1.0.0",
      secured: true,
    });
    await validate(document);
    const parsed = (await SwaggerParser.dereference(
      structuredClone(document) as never,
    )) as unknown as Document;
    expect(Object.keys(parsed.paths)).toEqual([
      "/tools/plain",
      "/tools/empty",
      "/tools/defs",
      "/tools/draft7",
    ]);
    expect(parsed.paths["/tools/plain"]?.post.operationId).toBe("plain");
    expect(parsed.paths["/tools/plain"]?.post.summary).toBe("Tool plain");
    // A refused call says when to retry (Retry-After on the 429), as the REST face sends it.
    expect(parsed.paths["/tools/plain"]?.post.responses["429"]).toMatchObject({
      headers: { "Retry-After": { schema: { type: "integer" } } },
    });
    // The rebased $refs resolve to the tool's own definitions.
    const draft7 = parsed.paths["/tools/draft7"]?.post as unknown as {
      requestBody: { content: { "application/json": { schema: { properties: { x: { enum: string[] } } } } } };
      responses: {
        "200": {
          content: {
            "application/json": {
              schema: { properties: { structuredContent: { properties: { y: { type: string } } } } };
            };
          };
        };
      };
    };
    expect(draft7.requestBody.content["application/json"].schema.properties.x.enum).toEqual(["a", "b"]);
    expect(
      draft7.responses["200"].content["application/json"].schema.properties.structuredContent.properties.y
        .type,
    ).toBe("integer");
  });

  it("a document the validator rejects is caught (the check can fail)", async () => {
    const document = openApiDocument({
      tools: [],
      origin: "http://127.0.0.1:1",
      version: "1",
      secured: false,
    });
    await validate(document);
    await expect(validate({ ...document, openapi: "3.1.0", paths: { "no-slash": {} } })).rejects.toThrow();
  });
});

describe("GET /openapi.json of a real gateway", () => {
  let bridge: Bridge;
  let gateway: Gateway;
  let base: string;

  beforeAll(async () => {
    bridge = await startBridge({
      servers: {
        calc: inProcessEntry("normal"),
        kinds: inProcessEntry("content-types"),
        dyn: inProcessEntry("list-changed"),
      },
    });
    gateway = await startGateway({ bridge });
    base = gateway.url.replace(/\/mcp$/, "");
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  const fetchDocument = async (path = "/openapi.json") => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Document;
  };

  it("validates, with one operation per tool named by its exposed name", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe("3.1.0");
    await validate(document);
    const names = bridge.tools().map((t) => t.name);
    expect(Object.keys(document.paths)).toEqual(names.map((n) => `/tools/${n}`));
    for (const name of names) expect(document.paths[`/tools/${name}`]?.post.operationId).toBe(name);
    const divide = bridge.tools().find((t) => t.tool === "divide")?.name ?? "";
    expect(document.components.schemas[`${divide}.output`]).toEqual(bridge.tool(divide)?.outputSchema);
  });

  it("per-server documents hold that server's tools and validate", async () => {
    const calc = await fetchDocument("/servers/calc/openapi.json");
    await validate(calc);
    expect(Object.keys(calc.paths).sort()).toEqual(
      bridge
        .tools({ server: "calc" })
        .map((t) => `/tools/${t.name}`)
        .sort(),
    );
    expect((await fetch(`${base}/servers/nowhere/openapi.json`)).status).toBe(404);
  });

  it("follows the tool list: a tool added upstream appears in the next document", async () => {
    const before = await fetchDocument();
    const add = bridge.tools().find((t) => t.server === "dyn" && t.tool === "add_tool")?.name ?? "";
    const res = await fetch(`${base}/tools/${add}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "fresh" }),
    });
    expect(res.status).toBe(200);
    let after = before;
    for (let i = 0; i < 100 && Object.keys(after.paths).length === Object.keys(before.paths).length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await fetchDocument();
    }
    const added = Object.keys(after.paths).filter((p) => !(p in before.paths));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/fresh/);
    await validate(after);
  });
});
