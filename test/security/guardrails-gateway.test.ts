import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { executeCode } from "../../src/codemode/execute-code.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { connect, textOf } from "../gateway/client.js";
import { inProcessEntry } from "../helpers/in-process.js";

/**
 * The guardrails sit in the library's call path, so a gateway client (`serve`, `attach`) and a
 * code-mode program get the same checks as the library: poisoned descriptions and prompts masked in
 * listings, credentials masked in the results they are given.
 */
const TAG = /[\u{E0000}-\u{E007F}]/u;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

describe("guardrails behind the gateway", () => {
  let bridge: Bridge;
  let gateway: Gateway;
  beforeAll(async () => {
    bridge = await startBridge({
      servers: { evil: inProcessEntry("poisoned") },
      env: { PATH: process.env.PATH },
      settings: { guardrails: { rules: [{ tool: "weather", instructions: "block" }] } },
    });
    gateway = await startGateway({ bridge, port: 0 });
  }, 30_000);
  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  it("lists tools with hidden text taken out and a tool giving orders kept out", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const { tools } = await client.listTools();
    const add = tools.find((tool) => tool.name.endsWith("add"));
    expect(add?.description).toMatch(/Adds two numbers\.$/);
    expect(JSON.stringify(tools)).not.toMatch(TAG);
    expect(tools.map((tool) => tool.name).some((name) => name.endsWith("weather"))).toBe(false);
  });

  it("forwards results with credentials masked", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const name = bridge.tools().find((tool) => tool.tool === "read_config")?.name ?? "";
    const result = await client.callTool({ name, arguments: {} });
    expect(textOf(result)).toContain("region: eu-west-1");
    expect(textOf(result)).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(textOf(result)).not.toContain("PRIVATE KEY-----\nMII");
  });

  it("lists and gets prompts with hidden text taken out", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const { prompts } = await client.listPrompts();
    const summarise = prompts.find((prompt) => prompt.name.endsWith("summarise"));
    expect(summarise?.description).toBeDefined();
    expect(summarise?.description).not.toMatch(BIDI);
    const got = await client.getPrompt({ name: summarise?.name ?? "", arguments: { text: "a report" } });
    const text = JSON.stringify(got.messages);
    expect(text).toContain("Summarise: a report");
    expect(text).not.toMatch(TAG);
  });

  it("gives a code-mode program the masked result", async () => {
    const run = await executeCode(bridge, "const r = await tools.evil.read_config({}); return r.text;");
    expect(run.value).toContain("region: eu-west-1");
    expect(run.value).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });
});
