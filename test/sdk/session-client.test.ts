import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { SessionClient } from "../../src/connection/session-client.js";
import { PROTOCOL_REQUEST_TABLES } from "../../src/sdk/protocol-tables.js";
import { IdTable } from "../../src/util/id-table.js";

/** The SDK's own validation of a tools/call result on the negotiated wire (what Client.callTool applies). */
class SdkValidation extends Client {
  validate(value: unknown) {
    const outcome = this._wireCodec().validateResult("tools/call", value);
    return outcome.ok
      ? { value: outcome.value }
      : { issues: [{ message: outcome.reason === "invalid" ? outcome.message : "not-in-era: tools/call" }] };
  }
}

/** JSON object text from entries, so that keys like `__proto__` and repeated keys reach JSON.parse as written. */
const objectText = (entries: readonly (readonly [string, string])[]) =>
  `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(",")}}`;
const json = (value: unknown) => JSON.stringify(value);

/** Content blocks near a text block: right and wrong types, extra and missing keys. */
const blockText = fc.oneof(
  fc
    .tuple(
      fc.string(),
      fc.option(fc.tuple(fc.constantFrom("annotations", "_meta", "x", "__proto__"), fc.jsonValue())),
    )
    .map(([text, extra]) =>
      objectText([
        ["type", '"text"'],
        ["text", json(text)],
        ...(extra ? [[extra[0], json(extra[1])] as const] : []),
      ]),
    ),
  fc
    .array(
      fc.tuple(
        fc.constantFrom("type", "text", "data", "mimeType"),
        fc.oneof(fc.constantFrom('"text"', '"image"', '"resource_link"', "1"), fc.jsonValue().map(json)),
      ),
      { maxLength: 4 },
    )
    .map(objectText),
  fc.jsonValue().map(json),
);

const resultText = fc.oneof(
  fc
    .tuple(
      fc.option(
        fc.array(blockText, { maxLength: 3 }).map((blocks) => `[${blocks.join(",")}]`),
        { freq: 8 },
      ),
      fc.option(fc.constantFrom("true", "false", '"true"', "null"), { freq: 2 }),
      fc.option(
        fc.tuple(
          fc.constantFrom("structuredContent", "_meta", "task", "x", "__proto__", "resultType"),
          fc.jsonValue().map(json),
        ),
        { freq: 3 },
      ),
    )
    .map(([content, isError, extra]) =>
      objectText([
        ...(content === null ? [] : [["content", content] as const]),
        ...(isError === null ? [] : [["isError", isError] as const]),
        ...(extra ? [extra] : []),
      ]),
    ),
  fc.jsonValue().map(json),
);

describe("SessionClient", () => {
  it("validates a tools/call result exactly as the SDK's era validation does", () => {
    const ours = new SessionClient({ name: "t", version: "1" });
    const sdk = new SdkValidation({ name: "t", version: "1" });
    fc.assert(
      fc.property(resultText, (text) => {
        const value = JSON.parse(text) as unknown;
        expect(ours.validateToolResult(value)).toStrictEqual(sdk.validate(value));
      }),
      { numRuns: 1000 },
    );
  });

  describe("against a real server", () => {
    const results: Record<string, unknown> = {
      text: { content: [{ type: "text", text: "3" }] },
      error: { content: [{ type: "text", text: "boom" }], isError: true },
      mixed: {
        content: [
          { type: "text", text: "a", annotations: { priority: 1 } },
          { type: "image", data: "AA==", mimeType: "image/png" },
        ],
      },
    };
    const client = new SessionClient({ name: "t", version: "1" });
    let server: McpServer;

    beforeAll(async () => {
      server = new McpServer({ name: "s", version: "1" });
      for (const [name, result] of Object.entries(results)) {
        server.registerTool(name, { inputSchema: z.object({}) }, async () => result as never);
      }
      server.registerTool("strict", { inputSchema: z.object({ n: z.number() }) }, async ({ n }) => ({
        content: [{ type: "text", text: String(n) }],
      }));
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      await client.connect(clientSide);
    });
    afterAll(async () => {
      await client.close();
      await server.close();
    });

    it("returns what callTool returns, results and failures alike", async () => {
      // The cheaper path is the 2025 wire's; this server negotiates it.
      expect(client.getProtocolEra()).toBe("legacy");
      const { tools } = await client.listTools();
      const settle = (p: Promise<unknown>) =>
        p.then(
          (value) => ({ value }),
          (error: Error) => ({ error: error.message }),
        );
      for (const tool of tools) {
        for (const args of [{}, { n: 1 }, { n: "x" }]) {
          const params = { name: tool.name, arguments: args };
          expect(await settle(client.callPlainTool(params, tool, { timeout: 5000 }))).toStrictEqual(
            await settle(client.callTool(params, { timeout: 5000 })),
          );
        }
      }
    });
  });

  it("keeps pending requests in IdTables, and still fails them all when the connection closes", async () => {
    const client = new SessionClient({ name: "t", version: "1" });
    // The SDK's private request tables: if a new SDK renames them, this says the speed-up is gone.
    const fields = client as unknown as Record<string, unknown>;
    for (const name of PROTOCOL_REQUEST_TABLES) {
      expect(fields[name]).toBeInstanceOf(IdTable);
    }
    const server = new McpServer({ name: "s", version: "1" });
    let started = 0;
    server.registerTool("hang", { inputSchema: z.object({}) }, () => {
      started++;
      return new Promise<never>(() => {});
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const hang = tools[0] as (typeof tools)[number];
    const calls = Array.from({ length: 5 }, () =>
      client.callPlainTool({ name: "hang" }, hang, { timeout: 60_000, onprogress: () => {} }).then(
        () => "answered",
        (error: Error) => error.message,
      ),
    );
    await expect.poll(() => started).toBe(5);
    expect((fields._responseHandlers as IdTable<number, unknown>).size).toBe(5);
    await client.close();
    expect(await Promise.all(calls)).toEqual(Array(5).fill("Connection closed"));
    expect((fields._timeoutInfo as IdTable<number, unknown>).size).toBe(0);
    expect((fields._progressHandlers as IdTable<number, unknown>).size).toBe(0);
    await server.close();
  });
});
