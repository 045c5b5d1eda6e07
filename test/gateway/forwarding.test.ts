import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Gateway,
  type GatewayToken,
  RequestForwarder,
  startGateway,
} from "../../src/apps/gateway/index.js";
import type { RawServers } from "../../src/bridge/api.js";
import { type Bridge, startBridge } from "../../src/index.js";
import type { Logger } from "../../src/util/logger.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { capturingLogger, until } from "../helpers/wait.js";
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

/**
 * For one describe block: a bridge over SERVERS whose elicitation, sampling and log messages go through
 * a forwarder, and a gateway in front of it; the returned function gives the running gateway.
 */
function forwardingGateway(
  servers: RawServers,
  options: { timeoutMs?: number; tokens?: GatewayToken[]; logger?: Logger } = {},
): () => Gateway {
  const started: { bridge?: Bridge; gateway?: Gateway } = {};
  beforeAll(async () => {
    const forwarder = new RequestForwarder(
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
    );
    started.bridge = await startBridge({
      servers,
      onElicitation: forwarder.elicitation,
      onSampling: forwarder.sampling,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    started.gateway = await startGateway({
      bridge: started.bridge,
      forwarder,
      ...(options.tokens ? { tokens: options.tokens } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await started.gateway?.close();
    await started.bridge?.close();
  });
  return () => started.gateway as Gateway;
}

describe("elicitation and sampling through the gateway", () => {
  const gateway = forwardingGateway({
    secret: inProcessEntry("asks-for-secret"),
    sampler: inProcessEntry("sampler", { sampling: true }),
    slow: inProcessEntry("slow-tool"),
  });

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`asks the client whose call caused it; a client without the capability gets the default (${mode})`, async () => {
      await using capable = await capableClient(gateway().url, mode);
      const answered = await capable.callTool({ name: "mcp_secret_login", arguments: {} });
      expect(textOf(answered)).toContain("typed-by-the-user");
      const sampled = await capable.callTool({ name: "mcp_sampler_ask", arguments: { prompt: "hello?" } });
      expect(sampled.isError).toBeFalsy();
      expect(textOf(sampled)).toContain("the host's answer");
      expect(capable.asked).toEqual(["elicit: Give me your API key", "sample: hello?"]);

      await using plain = await plainClient(gateway().url, mode);
      const declined = await plain.callTool({ name: "mcp_secret_login", arguments: {} });
      expect(JSON.parse(textOf(declined))).toEqual({ action: "decline" });
      const refused = await plain.callTool({ name: "mcp_sampler_ask", arguments: { prompt: "hello?" } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/sampling failed: .*Sampling for server "sampler" failed/);
      expect(capable.asked).toHaveLength(2);
    });
  }

  it("never asks a client whose call runs on another server", async () => {
    await using bystander = await capableClient(gateway().url, "2025-11-25");
    await using asker = await capableClient(gateway().url, "2025-11-25");
    const running = bystander.callTool({ name: "mcp_slow_sleep", arguments: { ms: 1_500 } });
    const answered = await asker.callTool({ name: "mcp_secret_login", arguments: {} });
    expect(textOf(answered)).toContain("typed-by-the-user");
    await running;
    expect(asker.asked).toEqual(["elicit: Give me your API key"]);
    expect(bystander.asked).toEqual([]);
  });

  it("a question caused by one client's read never goes to the only other client with a call there", async () => {
    await using bystander = await capableClient(gateway().url, "2025-11-25");
    await using reader = await plainClient(gateway().url, "2025-11-25");
    const waiting = bystander.callTool({ name: "mcp_secret_wait", arguments: {} });
    await until(() => gateway().tracker.inFlight === 1);
    // The read makes the server ask; the bystander's call is the only tool call running on it.
    const read = await reader.readResource({ uri: "secret://vault" });
    expect(read.contents).toEqual([expect.objectContaining({ text: JSON.stringify({ action: "decline" }) })]);
    await reader.callTool({ name: "mcp_secret_release", arguments: {} });
    expect(textOf(await waiting)).toBe("released");
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

const A = "client-a-token";
const B = "client-b-token";

/** A gateway over the asks-for-secret fixture for tokens A and B, parked calls kept `timeoutMs`. */
function secretGateway(timeoutMs: number): () => Gateway {
  return forwardingGateway(
    { secret: inProcessEntry("asks-for-secret") },
    {
      timeoutMs,
      tokens: [
        { token: A, client: "a" },
        { token: B, client: "b" },
      ],
    },
  );
}

/** One raw 2026-07-28 tools/call of mcp_secret_login through GATEWAY, as a client holding TOKEN sends it. */
async function login(gateway: Gateway, token: string, retry?: { requestState: string; answer?: unknown }) {
  const response = await fetch(gateway.url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "mcp_secret_login",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "mcp_secret_login",
        arguments: {},
        ...(retry
          ? {
              requestState: retry.requestState,
              ...(retry.answer ? { inputResponses: { upstream: retry.answer } } : {}),
            }
          : {}),
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
          "io.modelcontextprotocol/clientInfo": { name: token, version: "1" },
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  return JSON.parse(json) as {
    result?: { resultType?: string; requestState?: string; content?: { text: string }[] };
    error?: { message: string };
  };
}

describe("2026-07-28 input rounds through the gateway", () => {
  // Parked calls live long enough for a loaded machine's slowest round trip.
  const gateway = secretGateway(20_000);

  it("a requestState works once, only for the client it was given to", async () => {
    const first = await login(gateway(), A);
    expect(first.result?.resultType).toBe("input_required");
    const state = first.result?.requestState as string;
    const answer = { action: "accept", content: { apiKey: "typed-by-a" } };

    const stolen = await login(gateway(), B, { requestState: state, answer });
    expect(stolen.error?.message).toMatch(/Unknown or expired requestState/);

    const resumed = await login(gateway(), A, { requestState: state, answer });
    expect(resumed.result?.content?.[0]?.text).toContain("typed-by-a");

    const replayed = await login(gateway(), A, { requestState: state, answer });
    expect(replayed.error?.message).toMatch(/Unknown or expired requestState/);
  });

  it("a retry without an answer gets the default", async () => {
    const first = await login(gateway(), A);
    const unanswered = await login(gateway(), A, { requestState: first.result?.requestState as string });
    expect(unanswered.result?.content?.[0]?.text).toBe(JSON.stringify({ action: "decline" }));
  });
});

describe("2026-07-28 input rounds through the gateway, a client that never returns", () => {
  const gateway = secretGateway(200);

  it("is timed out: its parked call is answered by default and forgotten", async () => {
    const abandoned = await login(gateway(), A);
    expect(abandoned.result?.resultType).toBe("input_required");
    // Longer than the forwarder's 200 ms.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const late = await login(gateway(), A, {
      requestState: abandoned.result?.requestState as string,
      answer: { action: "accept", content: { apiKey: "too late" } },
    });
    expect(late.error?.message).toMatch(/Unknown or expired requestState/);
  });
});

describe("upstream log messages through the gateway", () => {
  const logger = capturingLogger();
  const gateway = forwardingGateway({ logs: inProcessEntry("logs") }, { logger: logger.logger });

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`a message about one client's work never reaches another, even the only one with a call running (${mode})`, async () => {
      await using starter = await plainClient(gateway().url, mode);
      await using bystander = await plainClient(gateway().url, mode);
      const overheard: string[] = [];
      bystander.setNotificationHandler("notifications/message", (n) => {
        overheard.push(String(n.params.data));
      });
      starter.setNotificationHandler("notifications/message", () => undefined);
      // The bystander's call is the only one running on the server...
      const waiting = bystander.callTool({ name: "mcp_logs_wait", arguments: {} });
      await until(() => gateway().tracker.inFlight === 1);
      // ...when work the starter's finished call began logs a message about it.
      const started = await starter.callTool({
        name: "mcp_logs_later",
        arguments: { tag: `secret-${mode}` },
      });
      expect(textOf(started)).toBe(`started secret-${mode}`);
      await until(() => logger.messages.some((m) => m.includes(`later from secret-${mode}`)));
      await starter.callTool({ name: "mcp_logs_release", arguments: {} });
      expect(textOf(await waiting)).toBe("released");
      expect(overheard).toEqual([]);
    });
  }

  it("messages nothing ties to a call stay in the gateway's own log", async () => {
    await using caller = await plainClient(gateway().url, "2025-11-25");
    const heard: string[] = [];
    caller.setNotificationHandler("notifications/message", (n) => {
      heard.push(String(n.params.data));
    });
    await caller.setLoggingLevel("info");
    const result = await caller.callTool({ name: "mcp_logs_chatty", arguments: { tag: "own" } });
    expect(textOf(result)).toBe("done own");
    expect(logger.messages.some((m) => m.includes("error from own"))).toBe(true);
    expect(heard).toEqual([]);
  });
});
