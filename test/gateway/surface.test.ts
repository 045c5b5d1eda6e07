import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { startHttpFixture } from "../fixtures/servers/index.js";
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
      expect(resources).toEqual([expect.objectContaining({ uri: "modern://readme", title: "Read me" })]);
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
});
