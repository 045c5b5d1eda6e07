import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAISamplingHandler } from "../../src/adapters/openai-sampling.js";
import { ErrorCode, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { until } from "../helpers/wait.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

interface Recorded {
  readonly authorization: string | undefined;
  readonly body: Record<string, unknown>;
}

/** A scripted OpenAI-compatible endpoint on 127.0.0.1: records requests, answers from the script. */
function scriptedEndpoint(answer: (body: Record<string, unknown>) => unknown) {
  const requests: Recorded[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    requests.push({ authorization: req.headers.authorization, body });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(answer(body)));
  });
  return {
    requests,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("sampling", () => {
  const endpoint = scriptedEndpoint((body) => {
    const tools = body.tools as unknown[] | undefined;
    if (tools?.length) {
      return {
        model: "scripted-1",
        choices: [
          {
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"word":"mcp"}' } },
              ],
            },
          },
        ],
      };
    }
    return {
      model: "scripted-1",
      choices: [{ finish_reason: "stop", message: { role: "assistant", content: "Scripted answer." } }],
    };
  });
  let baseUrl = "";
  beforeAll(async () => {
    baseUrl = await endpoint.start();
  });
  afterAll(() => endpoint.close());

  it("server-everything's sampling tool appears and is fulfilled through an OpenAI-compatible endpoint, maxTokens capped", async () => {
    await using bridge = await startBridge({
      servers: { everything: { ...everything, sampling: { maxTokens: 50 } } },
      onSampling: openAISamplingHandler({ baseUrl, apiKey: "test-key", model: "gpt-test", env: {} }),
    });
    await until(() => bridge.tool("mcp_everything_trigger-sampling-request") !== undefined);
    const result = await bridge.call("everything/trigger-sampling-request", {
      prompt: "Say hi",
      maxTokens: 500,
    });
    expect(result.text).toContain("Scripted answer.");
    const last = endpoint.requests.at(-1);
    expect(last?.authorization).toBe("Bearer test-key");
    expect(last?.body).toMatchObject({ model: "gpt-test", max_tokens: 50 });
    expect((last?.body.messages as { role: string }[] | undefined)?.[0]?.role).toBe("system");
  });

  it("without a handler (or not allowed) the capability is not declared: the sampling tool does not appear", async () => {
    await using plain = await startBridge({ servers: { everything } });
    await using notAllowed = await startBridge({
      servers: { everything },
      onSampling: () => ({ role: "assistant", model: "x", content: { type: "text", text: "no" } }),
    });
    // The conditional tools arrive together after initialization; roots' tool shows they have.
    await plain.setRoots(["/tmp"]);
    await until(() => plain.tool("mcp_everything_get-roots-list") !== undefined);
    await until(() => notAllowed.tool("mcp_everything_get-roots-list") !== undefined);
    expect(plain.tool("mcp_everything_trigger-sampling-request")).toBeUndefined();
    expect(notAllowed.tool("mcp_everything_trigger-sampling-request")).toBeUndefined();
  });

  it("supports tool use inside sampling (tool_calls come back as tool_use blocks)", async () => {
    await using bridge = await startBridge({
      servers: { sampler: inProcessEntry("sampler", { sampling: true }) },
      onSampling: openAISamplingHandler({ baseUrl, model: "gpt-test", env: {} }),
    });
    const result = await bridge.call("sampler/ask", { prompt: "Look up mcp", withTools: true });
    const answer = JSON.parse(result.text) as { stopReason: string; content: unknown };
    expect(answer.stopReason).toBe("toolUse");
    expect(answer.content).toEqual([
      { type: "tool_use", id: "call_1", name: "lookup", input: { word: "mcp" } },
    ]);
    const sent = endpoint.requests.at(-1)?.body as {
      tools: { function: { name: string } }[];
      tool_choice: string;
    };
    expect(sent.tools[0]?.function.name).toBe("lookup");
    expect(sent.tool_choice).toBe("auto");
  });

  it("a server that is not allowed is refused; a throwing or slow handler fails only that call", async () => {
    let calls = 0;
    await using bridge = await startBridge({
      servers: {
        refused: inProcessEntry("sampler"),
        throws: inProcessEntry("sampler", { sampling: true }),
        slow: inProcessEntry("sampler", { sampling: true, timeout: "1s" }),
      },
      onSampling: (_request, { server, signal }) => {
        calls++;
        if (server === "throws") throw new Error("model is down");
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      },
    });
    await expect(bridge.call("refused/ask", { prompt: "hi" })).rejects.toMatchObject({
      code: ErrorCode.ToolExecution,
      server: "refused",
      tool: "ask",
      message: expect.stringMatching(/server "refused".*sampling failed/),
    });
    expect(calls).toBe(0);
    await expect(bridge.call("throws/ask", { prompt: "hi" })).rejects.toMatchObject({
      server: "throws",
      message: expect.stringContaining("model is down"),
    });
    // The handler's time limit is the server's call timeout; the tool call's own limit is larger here.
    await expect(bridge.call("slow/ask", { prompt: "hi" }, { timeout: 20_000 })).rejects.toMatchObject({
      server: "slow",
      message: expect.stringContaining("did not answer within 1000 ms"),
    });
    expect(bridge.servers().every((status) => status.state === "connected")).toBe(true);
  });
});
