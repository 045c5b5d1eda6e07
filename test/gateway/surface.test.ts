import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { startHttpFixture } from "../fixtures/servers/index.js";
import { until } from "../helpers/wait.js";
import { connect } from "./client.js";

describe("resources and prompts through the gateway", () => {
  let fixture: Awaited<ReturnType<typeof startHttpFixture>>;
  let bridge: Bridge;
  let gateway: Gateway;

  beforeAll(async () => {
    fixture = await startHttpFixture("modern-surface", ["--modern"]);
    bridge = await startBridge({
      servers: { modern: { type: "http", url: fixture.url, negotiation: "2026-07-28" } },
    });
    gateway = await startGateway({ bridge });
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
    await fixture?.close();
  });

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`lists and reads resources, lists and gets prompts (${mode})`, async () => {
      await using client = await connect(gateway.url, mode, undefined);
      const { resources } = await client.listResources();
      // The upstream server's resource, then the gateway's own status resource.
      expect(resources).toEqual([
        expect.objectContaining({ uri: "modern://readme", title: "Read me" }),
        expect.objectContaining({ uri: "mcp-bridge://status", mimeType: "application/json" }),
      ]);
      const read = await client.readResource({ uri: "modern://readme" });
      expect(read.contents).toEqual([
        expect.objectContaining({ uri: "modern://readme", text: "modern era resource" }),
      ]);
      const { prompts } = await client.listPrompts();
      const hello = prompts.find((p) => p.name.includes("hello"));
      expect(hello).toBeDefined();
      const got = await client.getPrompt({ name: hello?.name ?? "", arguments: { name: "Bob" } });
      expect(got.messages[0]?.content).toEqual({ type: "text", text: "Hello Bob" });
      await expect(client.getPrompt({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown prompt/);
      await expect(client.readResource({ uri: "modern://missing" })).rejects.toThrow();
    });
  }

  for (const mode of ["2025-11-25", "2026-07-28"] as const) {
    it(`completes prompt arguments and template variables through the gateway (${mode})`, async () => {
      await using client = await connect(gateway.url, mode, undefined);
      const pick = (await client.listPrompts()).prompts.find((p) => p.name.includes("pick"))?.name ?? "";
      const colours = await client.complete({
        ref: { type: "ref/prompt", name: pick },
        argument: { name: "colour", value: "gr" },
      });
      expect(colours.completion.values).toEqual(["green", "grey"]);
      const ids = await client.complete({
        ref: { type: "ref/resource", uri: "modern://notes/{id}" },
        argument: { name: "id", value: "al" },
      });
      expect(ids.completion.values).toEqual(["alpha", "alpine"]);
      await expect(
        client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }),
      ).rejects.toThrow(/Unknown prompt/);
    });
  }

  it("passes resources/updated on to a session that subscribed, and stops after unsubscribe", async () => {
    await using client = await connect(gateway.url, "2025-11-25", undefined);
    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updates.push(notification.params.uri);
    });
    await using other = await connect(gateway.url, "2025-11-25", undefined);
    const elsewhere: string[] = [];
    other.setNotificationHandler("notifications/resources/updated", (notification) => {
      elsewhere.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: "modern://readme" });
    await client.callTool({ name: "mcp_modern_touch", arguments: {} });
    await until(() => updates.length > 0);
    expect(updates).toEqual(["modern://readme"]);
    await expect(client.subscribeResource({ uri: "modern://missing" })).rejects.toThrow(/Resource not found/);
    await client.unsubscribeResource({ uri: "modern://readme" });
    await client.callTool({ name: "mcp_modern_touch", arguments: {} });
    // The client that never subscribed hears nothing; a round trip lets a stray notification arrive first.
    await other.listTools();
    await client.listTools();
    expect(updates).toEqual(["modern://readme"]);
    expect(elsewhere).toEqual([]);
  });
});
