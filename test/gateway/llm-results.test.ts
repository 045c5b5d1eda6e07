import { once } from "node:events";
import { PassThrough } from "node:stream";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwardedResult, modelResult } from "../../src/apps/gateway/forwarding/forwarded-tool.js";
import { type Gateway, serveGatewayStdio, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { keepUpstream } from "../../src/util/upstream.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { connect, type Era } from "./client.js";

/** The bridge's cap for the server's results (settings.maxResultChars). */
const CAP = 200;
const MARKER = /\n\[\.\.\. truncated: \d+ more characters\]$/;
const ERAS: Era[] = ["2025-11-25", "2026-07-28"];

describe("LLM-ready results through the gateway (opt-in)", () => {
  let bridge: Bridge;
  /** Results unchanged by default; token "llm" has a profile with llmResults, token "raw" none. */
  let plain: Gateway;
  /** llmResults for every client, and no fast path: the SDK handler's answer. */
  let llm: Gateway;

  beforeAll(async () => {
    bridge = await startBridge({
      servers: { c: inProcessEntry("content-types") },
      settings: { maxResultChars: CAP },
    });
    plain = await startGateway({
      bridge,
      tokens: [
        { token: "token-llm", client: "llm", profile: { llmResults: true } },
        { token: "token-raw", client: "raw" },
      ],
    });
    llm = await startGateway({ bridge, llmResults: true, fastPath: false });
  }, 60_000);

  afterAll(async () => {
    await plain?.close();
    await llm?.close();
    await bridge?.close();
  });

  async function call(url: string, era: Era, token: string | undefined, tool: string, args = {}) {
    await using client = await connect(url, era, token);
    return (await client.callTool({ name: `mcp_c_${tool}`, arguments: args })) as CallToolResult;
  }

  for (const era of ERAS) {
    it(`passes results through unchanged by default (${era})`, async () => {
      const big = await call(plain.url, era, "token-raw", "big", { chars: 5000 });
      expect(big.content).toEqual([{ type: "text", text: "x".repeat(5000) }]);
      const image = await call(plain.url, era, "token-raw", "image");
      expect(image.content).toEqual([expect.objectContaining({ type: "image", mimeType: "image/png" })]);
    });

    it(`gives a token whose profile asks for it the library's text, capped (${era})`, async () => {
      const big = await call(plain.url, era, "token-llm", "big", { chars: 5000 });
      expect(big.content).toHaveLength(1);
      const text = (big.content[0] as { text: string }).text;
      expect(text.length).toBeLessThanOrEqual(CAP);
      expect(text).toMatch(MARKER);
      expect(text.startsWith("xxxx")).toBe(true);
      expect(big.structuredContent).toBeUndefined();
      const image = await call(plain.url, era, "token-llm", "image");
      expect(image.content).toEqual([
        { type: "text", text: expect.stringMatching(/^\[image: image\/png, \d+ B\]$/) },
      ]);
    });

    it(`keeps isError and a structuredContent within the cap (${era})`, async () => {
      const failed = await call(plain.url, era, "token-llm", "fails");
      expect(failed.isError).toBe(true);
      expect(failed.content).toEqual([{ type: "text", text: "the thing went wrong" }]);
      const structured = await call(plain.url, era, "token-llm", "structured");
      expect(structured.structuredContent).toEqual({ temperature: 21.5, unit: "C" });
      expect(structured.content).toHaveLength(1);
      expect(JSON.parse((structured.content[0] as { text: string }).text)).toEqual({
        temperature: 21.5,
        unit: "C",
      });
    });

    it(`gives the same answer with the gateway option on, without the fast path (${era})`, async () => {
      for (const [tool, args] of [
        ["big", { chars: 5000 }],
        ["image", {}],
        ["mixed", {}],
        ["fails", {}],
      ] as const) {
        const viaOption = await call(llm.url, era, undefined, tool, args);
        const viaProfile = await call(plain.url, era, "token-llm", tool, args);
        expect(viaOption).toEqual(viaProfile);
      }
    });
  }

  it("answers over stdio (its fast path) as over HTTP, with the option on", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const channel = serveGatewayStdio(bridge, { stdin, stdout, llmResults: true });
    try {
      const answers = lines(stdout);
      // Notifications (a list change) may come between: the answer is the message with the request's id.
      const reply = async (id: number) => {
        // Not for-await: leaving its loop would end the generator for the next reply.
        for (;;) {
          const line = await answers.next();
          if (line.done) break;
          const message = JSON.parse(line.value) as { id?: number; result?: CallToolResult };
          if (message.id === id) return message;
        }
        throw new Error("stdout ended");
      };
      const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      });
      await reply(1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (const [i, [tool, args]] of (
        [
          ["big", { chars: 5000 }],
          ["image", {}],
        ] as const
      ).entries()) {
        send({
          jsonrpc: "2.0",
          id: 10 + i,
          method: "tools/call",
          params: { name: `mcp_c_${tool}`, arguments: args },
        });
        const answer = await reply(10 + i);
        expect(answer.result).toEqual(await call(plain.url, "2025-11-25", "token-llm", tool, args));
      }
    } finally {
      await channel.close();
    }
  });

  it("drops a structuredContent whose JSON is over the cap, keeps one within it", () => {
    const structuredContent = { rows: "y".repeat(50) };
    const result = { text: "t", content: [], isError: false, structuredContent };
    expect(modelResult(result, 20)).toEqual({ content: [{ type: "text", text: "t" }] });
    expect(modelResult(result, 1000)).toEqual({ content: [{ type: "text", text: "t" }], structuredContent });
    expect(modelResult(result, 0).structuredContent).toEqual(structuredContent);
  });

  it("passes an upstream's input_required round on as it came: it is a question, not a result", () => {
    const round = { resultType: "input_required", inputRequests: { q: { method: "elicitation/create" } } };
    const result = keepUpstream({ text: "", content: [], isError: false }, round);
    expect(modelResult(result, 10)).toEqual(forwardedResult(result));
    expect(modelResult(result, 10)).toMatchObject(round);
  });
});

/** The lines written to `stream`, one JSON-RPC message each. */
async function* lines(stream: PassThrough): AsyncGenerator<string> {
  let buffered = "";
  for (;;) {
    const newline = buffered.indexOf("\n");
    if (newline >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      continue;
    }
    const chunk = stream.read() as Buffer | null;
    if (chunk) buffered += chunk.toString("utf8");
    else await once(stream, "readable");
  }
}
