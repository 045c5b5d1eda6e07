import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, RequestForwarder, startGateway } from "../../src/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { type Era, textOf } from "./client.js";

/** A downstream client that declares elicitation and sampling and records what it is asked. */
async function capableClient(url: string, mode: Era) {
  const asked: string[] = [];
  const client = new Client(
    { name: "asks-its-user", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} }, sampling: {} },
      versionNegotiation: { mode: mode === "2025-11-25" ? "legacy" : { pin: mode } },
    },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicit: ${request.params.message}`);
    return { action: "accept", content: { apiKey: "typed-by-the-user" } };
  });
  client.setRequestHandler("sampling/createMessage", async (request) => {
    const first = request.params.messages[0]?.content;
    asked.push(`sample: ${first && "text" in first ? first.text : ""}`);
    return { role: "assistant", model: "host-model", content: { type: "text", text: "the host's answer" } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, { asked, [Symbol.asyncDispose]: () => client.close() });
}

async function plainClient(url: string, mode: Era) {
  const client = new Client(
    { name: "no-user", version: "1.0.0" },
    { versionNegotiation: { mode: mode === "2025-11-25" ? "legacy" : { pin: mode } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

describe("elicitation and sampling through the gateway", () => {
  let bridge: Bridge;
  let gateway: Gateway;

  beforeAll(async () => {
    const forwarder = new RequestForwarder();
    bridge = await startBridge({
      servers: {
        secret: stdioEntry("asks-for-secret"),
        sampler: stdioEntry("sampler", { sampling: true }),
        slow: stdioEntry("slow-tool"),
      },
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
    });
    gateway = await startGateway({ bridge, forwarder });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  for (const mode of ["2025-11-25"] as const) {
    it(`asks the client whose call caused it; a client without the capability gets the default (${mode})`, async () => {
      await using capable = await capableClient(gateway.url, mode);
      const answered = await capable.callTool({ name: "mcp_secret_login", arguments: {} });
      expect(textOf(answered)).toContain("typed-by-the-user");
      const sampled = await capable.callTool({ name: "mcp_sampler_ask", arguments: { prompt: "hello?" } });
      expect(sampled.isError).toBeFalsy();
      expect(textOf(sampled)).toContain("the host's answer");
      expect(capable.asked).toEqual(["elicit: Give me your API key", "sample: hello?"]);

      await using plain = await plainClient(gateway.url, mode);
      const declined = await plain.callTool({ name: "mcp_secret_login", arguments: {} });
      expect(JSON.parse(textOf(declined))).toEqual({ action: "decline" });
      const refused = await plain.callTool({ name: "mcp_sampler_ask", arguments: { prompt: "hello?" } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/sampling failed: .*Sampling for server "sampler" failed/);
      expect(capable.asked).toHaveLength(2);
    });
  }

  it("never asks a client whose call runs on another server", async () => {
    await using bystander = await capableClient(gateway.url, "2025-11-25");
    await using asker = await capableClient(gateway.url, "2025-11-25");
    const running = bystander.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1_500 } });
    const answered = await asker.callTool({ name: "mcp_secret_login", arguments: {} });
    expect(textOf(answered)).toContain("typed-by-the-user");
    await running;
    expect(asker.asked).toEqual(["elicit: Give me your API key"]);
    expect(bystander.asked).toEqual([]);
  });

  it("with two calls running on the asking server, neither client is asked: the default answers", async () => {
    // The question cannot be tied to one of the two calls, and it must never reach the wrong client.
    const forwarder = new RequestForwarder();
    const untrackA = forwarder.track("secret", {
      elicit: async () => ({ action: "accept", content: { apiKey: "a" } }),
      sample: async () => ({ role: "assistant", model: "m", content: { type: "text", text: "a" } }),
    });
    const untrackB = forwarder.track("secret", {
      elicit: async () => ({ action: "accept", content: { apiKey: "b" } }),
      sample: async () => ({ role: "assistant", model: "m", content: { type: "text", text: "b" } }),
    });
    expect(await forwarder.elicitation({ server: "secret", message: "?" })).toEqual({ action: "decline" });
    untrackA();
    expect(await forwarder.elicitation({ server: "secret", message: "?" })).toEqual({
      action: "accept",
      content: { apiKey: "b" },
    });
    untrackB();
    expect(await forwarder.elicitation({ server: "secret", message: "?" })).toEqual({ action: "decline" });
  });
});
