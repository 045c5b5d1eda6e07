import { describe, expect, it } from "vitest";
import { startBridge } from "../../src/index.js";
import { startHttpFixture } from "../fixtures/servers/index.js";
import { until } from "../helpers/wait.js";

describe("the stateless 2026-07-28 protocol", () => {
  it("serves resources and prompts, and fulfils input_required sampling, elicitation and roots through the same handlers", async () => {
    await using fixture = await startHttpFixture("modern-surface", ["--modern"]);
    const sampled: number[] = [];
    await using bridge = await startBridge({
      servers: {
        modern: {
          type: "http",
          url: fixture.url,
          negotiation: "2026-07-28",
          sampling: { maxTokens: 64 },
          roots: ["/srv/project"],
        },
      },
      onSampling: (request) => {
        sampled.push(request.maxTokens);
        return { role: "assistant", model: "scripted", content: { type: "text", text: "hi from the host" } };
      },
      onElicitation: () => ({ action: "accept", content: { name: "Ada" } }),
    });
    expect(bridge.server("modern")?.protocolVersion).toBe("2026-07-28");
    const resources = await bridge.resources();
    expect(resources).toEqual([
      expect.objectContaining({ server: "modern", uri: "modern://readme", title: "Read me" }),
    ]);
    expect((await bridge.readResource("modern://readme")).text).toBe("modern era resource");
    const prompt = await bridge.getPrompt("modern/hello", { name: "Bob" });
    expect(prompt.messages[0]?.text).toBe("Hello Bob");

    expect((await bridge.call("modern/ask-model", {})).text).toBe("model said: hi from the host");
    expect(sampled).toEqual([64]);
    expect((await bridge.call("modern/ask-user", {})).text).toContain('"name":"Ada"');
    expect((await bridge.call("modern/roots", {})).text).toContain("file:///srv/project");
  });

  it("subscribes with subscriptions/listen and delivers resources/updated", async () => {
    await using fixture = await startHttpFixture("modern-surface", ["--modern"]);
    await using bridge = await startBridge({
      servers: { modern: { type: "http", url: fixture.url, negotiation: "2026-07-28" } },
    });
    const updates: string[] = [];
    const unsubscribe = await bridge.subscribe("modern://readme", (update) => updates.push(update.uri));
    await bridge.call("modern/touch", {});
    await until(() => updates.length > 0);
    expect(updates[0]).toBe("modern://readme");
    await unsubscribe();
  });
});

describe("completions and list changes in the stateless 2026-07-28 protocol", () => {
  it("completes a prompt argument and a template variable", async () => {
    await using fixture = await startHttpFixture("modern-surface", ["--modern"]);
    await using bridge = await startBridge({
      servers: { modern: { type: "http", url: fixture.url, negotiation: "2026-07-28" } },
    });
    const prompt = await bridge.complete(
      { type: "prompt", name: "modern/pick" },
      { name: "colour", value: "gr" },
    );
    expect(prompt).toMatchObject({ server: "modern", values: ["green", "grey"] });
    const template = await bridge.complete(
      { type: "resource", server: "modern", uriTemplate: "modern://notes/{id}" },
      { name: "id", value: "al" },
    );
    expect(template).toMatchObject({ server: "modern", values: ["alpha", "alpine"] });
    expect((await bridge.readResource("modern://notes/beta", { server: "modern" })).text).toBe("note beta");
  });

  it("keeps resources and prompts current when the server announces a list change", async () => {
    await using fixture = await startHttpFixture("modern-surface", ["--modern"]);
    await using bridge = await startBridge({
      servers: { modern: { type: "http", url: fixture.url, negotiation: "2026-07-28" } },
    });
    const changed: string[] = [];
    bridge.on("resourcesChanged", ({ server }) => changed.push(`resources:${server}`));
    bridge.on("promptsChanged", ({ server }) => changed.push(`prompts:${server}`));
    // Listed (and cached) before the change.
    expect((await bridge.resources()).map((r) => r.uri)).not.toContain("modern://extra");
    expect((await bridge.prompts()).map((p) => p.prompt)).not.toContain("extra");
    await bridge.call("modern/grow", {});
    await until(() => changed.includes("resources:modern") && changed.includes("prompts:modern"));
    expect((await bridge.resources()).map((r) => r.uri)).toContain("modern://extra");
    expect((await bridge.prompts()).map((p) => p.prompt)).toContain("extra");
    expect((await bridge.getPrompt("modern/extra")).messages[0]?.text).toBe("grown");
  });
});
