/**
 * The transport contract: one list of behavioural cases run through the library (`startBridge`) against
 * every transport (in the style of Hono's `src/router/common.case.test.ts`). Each transport's test file
 * calls `describeContract` with its entry of transports.ts; the servers start once per file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bridge, Progress, ServerLogMessage, ToolsChangedEvent } from "../../../src/index.js";
import { ErrorCode, startBridge } from "../../../src/index.js";
import { toToolResult } from "../../../src/results/convert.js";
import type { LogFields } from "../../../src/util/logger.js";
import { until } from "../../helpers/wait.js";
import type { ContractTransport, ServedFixtures } from "./transports.js";

const FIVE_MB = 5_000_000;

/** Case title → a defect the bridge shows on every transport (the case runs as `it.fails`). */
const defectsOfEveryTransport: Readonly<Record<string, string>> = {};

export function describeContract(transport: ContractTransport): void {
  describe(`transport contract: ${transport.name}`, () => {
    let fixtures: ServedFixtures | undefined;
    let bridge: Bridge;
    const logs: ServerLogMessage[] = [];
    const logged: { message: string; fields?: LogFields }[] = [];
    const keep = (message: string, fields?: LogFields) => {
      logged.push({ message, fields });
    };
    const toolsChanged: ToolsChangedEvent[] = [];
    const sampled: number[] = [];

    beforeAll(async () => {
      fixtures = await transport.serve();
      bridge = await startBridge({
        servers: fixtures.servers,
        logger: { debug: keep, info: keep, warn: keep, error: keep },
        onSampling: (request) => {
          sampled.push(request.maxTokens);
          return {
            role: "assistant",
            model: "scripted",
            content: { type: "text", text: "hi from the host" },
          };
        },
        onElicitation: () => ({ action: "accept", content: { name: "Ada" } }),
      });
      bridge.on("serverLog", (message) => logs.push(message));
      bridge.on("toolsChanged", (event) => toolsChanged.push(event));
    });
    afterAll(async () => {
      await bridge?.close();
      await fixtures?.[Symbol.asyncDispose]();
    });

    /** A case, or an expected failure where this transport has a known defect. */
    const contractCase = (title: string, body: () => Promise<void>) => {
      const defect = transport.defects?.[title] ?? defectsOfEveryTransport[title];
      if (defect === undefined) it(title, body);
      else it.fails(`${title} (known defect: ${defect})`, body);
    };

    /** How many calls the server saw cancelled so far (its handlers' signals that ended aborted). */
    const cancelledCount = async () => Number((await bridge.call("contract/cancelled", {})).text);

    contractCase("connects with the transport's protocol revision", async () => {
      expect(bridge.server("contract")).toMatchObject({
        state: "connected",
        protocolVersion: transport.protocolVersion,
      });
    });

    contractCase("lists tools with their schemas and titles", async () => {
      const echo = bridge.tool("mcp_contract_echo");
      expect(echo).toMatchObject({ server: "contract", tool: "echo", title: "Echo" });
      expect(echo?.inputSchema).toMatchObject({
        type: "object",
        properties: { text: { type: "string", description: "What to echo" } },
        required: ["text"],
      });
      expect(bridge.tool("mcp_contract_divide")?.outputSchema).toMatchObject({
        type: "object",
        properties: { quotient: { type: "number" } },
      });
    });

    contractCase("calls a tool, with plain, structured and isError results", async () => {
      expect(await bridge.call("contract/echo", { text: "over the wire" })).toMatchObject({
        text: "over the wire",
        isError: false,
      });
      const divided = await bridge.call("contract/divide", { a: 7, b: 2 });
      expect(divided.structuredContent).toEqual({ quotient: 3.5 });
      expect(divided.text).toContain("3.5");
      // isError: thrown as TOOL_EXECUTION by default, or handed back as a result on request.
      await expect(bridge.call("contract/fails", {})).rejects.toMatchObject({
        code: ErrorCode.ToolExecution,
        server: "contract",
        tool: "fails",
        message: expect.stringContaining("the thing went wrong"),
      });
      expect(await bridge.call("contract/fails", {}, { onError: "result" })).toMatchObject({
        text: "the thing went wrong",
        isError: true,
      });
    });

    contractCase("lists and reads resources (text and blob) and templates", async () => {
      const resources = await bridge.resources({ server: "contract" });
      expect(resources.map((resource) => resource.uri).sort()).toEqual([
        "contract://logo",
        "contract://readme",
      ]);
      expect(resources.find((resource) => resource.uri === "contract://readme")).toMatchObject({
        title: "Read me",
        mimeType: "text/plain",
      });
      expect(await bridge.readResource("contract://readme", { server: "contract" })).toMatchObject({
        server: "contract",
        text: "contract readme",
      });
      const cut = await bridge.readResource("contract://readme", { server: "contract", maxResultChars: 8 });
      expect(cut.text.length).toBeLessThanOrEqual(8);
      expect(cut.truncated?.droppedChars).toBeGreaterThan(0);
      // A blob reads as a placeholder line for the model, and as bytes on request.
      expect((await bridge.readResource("contract://logo", { server: "contract" })).text).toBe(
        "[blob: contract://logo (image/png, 70 B)]",
      );
      const logo = await bridge.readResource("contract://logo", { server: "contract", binary: true });
      expect(logo.parts[0]?.bytes?.subarray(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47])); // "PNG"
      const templates = await bridge.resourceTemplates({ server: "contract" });
      expect(templates.map((template) => template.uriTemplate)).toEqual(["contract://notes/{id}"]);
      // A URI only a template covers is routed to the template's server.
      expect(await bridge.readResource("contract://notes/beta")).toMatchObject({
        server: "contract",
        text: "note beta",
      });
    });

    contractCase("reports unknown resources, prompts and servers as typed errors naming them", async () => {
      await expect(bridge.readResource("nowhere://x")).rejects.toMatchObject({
        code: ErrorCode.ResourceNotFound,
        item: "nowhere://x",
      });
      await expect(bridge.getPrompt("contract/no-such-prompt")).rejects.toMatchObject({
        code: ErrorCode.PromptNotFound,
      });
      await expect(bridge.readResource("x://y", { server: "nope" })).rejects.toMatchObject({
        code: ErrorCode.ServerNotFound,
      });
    });

    contractCase("reports a URI the named server does not have as RESOURCE_NOT_FOUND", async () => {
      await expect(bridge.readResource("nowhere://x", { server: "contract" })).rejects.toMatchObject({
        code: ErrorCode.ResourceNotFound,
        server: "contract",
        item: "nowhere://x",
      });
    });

    contractCase("lists prompts and gets one with arguments", async () => {
      const prompts = await bridge.prompts({ server: "contract" });
      expect(prompts).toEqual([
        expect.objectContaining({ name: "mcp_contract_greet", prompt: "greet", title: "Greet" }),
      ]);
      const greeting = await bridge.getPrompt("contract/greet", { name: "Ada" });
      expect(greeting.messages).toEqual([expect.objectContaining({ role: "user", text: "Hello Ada" })]);
      await expect(bridge.getPrompt("contract/greet", {})).rejects.toMatchObject({
        code: ErrorCode.InvalidArguments,
        server: "contract",
      });
    });

    contractCase("completes a prompt argument and a template variable", async () => {
      const names = await bridge.complete(
        { type: "prompt", name: "contract/greet" },
        { name: "name", value: "A" },
      );
      expect(names).toMatchObject({ server: "contract", values: ["Ada", "Alan"] });
      const ids = await bridge.complete(
        { type: "resource", server: "contract", uriTemplate: "contract://notes/{id}" },
        { name: "id", value: "al" },
      );
      expect(ids.values).toEqual(["alpha", "alpine"]);
    });

    contractCase("delivers progress notifications during a call, in order", async () => {
      const progress: Progress[] = [];
      const result = await bridge.call(
        "contract/progress",
        { steps: 3 },
        { onProgress: (update) => progress.push(update) },
      );
      expect(result.text).toBe("done after 3 steps");
      expect(progress).toEqual([
        { progress: 1, total: 3, message: "step 1" },
        { progress: 2, total: 3, message: "step 2" },
        { progress: 3, total: 3, message: "step 3" },
      ]);
    });

    contractCase(
      "cancels a call on the caller's signal: the server sees it, the call rejects ABORTED",
      async () => {
        const before = await cancelledCount();
        const controller = new AbortController();
        // Aborted once the server runs the call (it reports progress when it starts), so it has it to cancel.
        const call = bridge.call(
          "contract/sleep",
          { ms: 20_000 },
          { signal: controller.signal, onProgress: () => controller.abort() },
        );
        await expect(call).rejects.toMatchObject({
          code: ErrorCode.Aborted,
          server: "contract",
          tool: "sleep",
        });
        await untilAsync(async () => (await cancelledCount()) > before);
      },
    );

    contractCase("times out a call with TOOL_TIMEOUT", async () => {
      await expect(bridge.call("contract/sleep", { ms: 20_000 }, { timeout: 300 })).rejects.toMatchObject({
        code: ErrorCode.ToolTimeout,
        server: "contract",
        tool: "sleep",
      });
      expect((await bridge.call("contract/echo", { text: "after the timeout" })).text).toBe(
        "after the timeout",
      );
    });

    contractCase("reports an unknown tool and a JSON-RPC error as typed errors", async () => {
      await expect(bridge.call("contract/no-such-tool", {})).rejects.toMatchObject({
        code: ErrorCode.ToolNotFound,
      });
      await expect(bridge.call("contract/rejects", {})).rejects.toMatchObject({
        code: ErrorCode.ToolExecution,
        server: "contract",
        tool: "rejects",
        rpcCode: -32050,
        message: expect.stringContaining("the server refuses this call"),
      });
      expect((await bridge.call("contract/echo", { text: "still fine" })).text).toBe("still fine");
    });

    contractCase("shows a tool added at runtime (tools/list_changed) with a toolsChanged event", async () => {
      const name = `added_${Date.now().toString(36)}`;
      await bridge.call("contract/add_tool", { name });
      await until(() => bridge.tool(`mcp_contract_${name}`) !== undefined);
      expect(
        toolsChanged.some(
          (event) => event.server === "contract" && event.tools.some((tool) => tool.tool === name),
        ),
      ).toBe(true);
      expect((await bridge.call(`contract/${name}`, {})).text).toBe(`I am ${name}`);
    });

    contractCase(
      "carries a 5 MB result whole, or cut by the configured limit exactly as the converter cuts it",
      async () => {
        const whole = await bridge.call("contract/big", { chars: FIVE_MB }, { maxResultChars: FIVE_MB + 1 });
        expect(whole.text.length).toBe(FIVE_MB);
        expect(whole.truncated).toBeUndefined();
        const cut = await bridge.call("contract/big", { chars: FIVE_MB }, { maxResultChars: 1000 });
        const expected = toToolResult(
          { content: [{ type: "text", text: "x".repeat(FIVE_MB) }] },
          { maxResultChars: 1000 },
        );
        expect(cut.text).toBe(expected.text);
        expect(cut.truncated).toEqual({
          originalChars: FIVE_MB,
          droppedChars: expected.truncated?.droppedChars,
        });
      },
    );

    contractCase("passes the server's log messages (notifications/message) to serverLog", async () => {
      const tag = `t${Date.now().toString(36)}`;
      expect((await bridge.call("contract/chatty", { tag })).text).toBe(`logged ${tag}`);
      await until(() => logs.filter((message) => String(message.data).endsWith(tag)).length === 2, 5000);
      expect(logs.filter((message) => String(message.data).endsWith(tag))).toEqual([
        { server: "contract", level: "info", logger: "chatty", data: `info from ${tag}` },
        { server: "contract", level: "error", logger: "chatty", data: `error from ${tag}` },
      ]);
      // The logger gets them too, named after the server and marked as server logs (serve hides them without -v).
      expect(logged.filter((line) => line.message.endsWith(tag))).toEqual([
        {
          message: `[contract] info from ${tag}`,
          fields: { server: "contract", level: "info", logger: "chatty", event: "server-log" },
        },
        {
          message: `[contract] error from ${tag}`,
          fields: { server: "contract", level: "error", logger: "chatty", event: "server-log" },
        },
      ]);
    });

    contractCase("round-trips sampling and elicitation through the host's handlers", async () => {
      expect((await bridge.call("contract/ask_model", {})).text).toBe("model said: hi from the host");
      expect(sampled.at(-1)).toBe(64); // the server asked for 500, the config caps it at 64
      expect((await bridge.call("contract/ask_user", {})).text).toContain('"name":"Ada"');
    });

    // Last: the server process ends (a stdio server is restarted, an HTTP one stays down).
    contractCase("fails a call whose server crashes mid-call with SERVER_CRASHED", async () => {
      await expect(bridge.call("contract/crash", {}, { timeout: 5000 })).rejects.toMatchObject({
        code: ErrorCode.ServerCrashed,
        server: "contract",
        tool: "crash",
      });
    });
  });
}

/** Polls an async condition, bounded in time. */
async function untilAsync(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
