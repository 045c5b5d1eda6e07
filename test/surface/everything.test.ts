import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, startBridge } from "../../src/index.js";
import { until } from "../helpers/wait.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

// What every transport does (resources, templates, prompts, completions, logging, typed errors) is in
// the transport contract suite (test/transport/contract/); these cases are what only server-everything,
// a server written by others, shows.
describe("server-everything beyond tools (stdio)", () => {
  it("gets a prompt with an embedded resource, completes from context, and lists its documents", async () => {
    await using bridge = await startBridge({ servers: { everything } });
    const resources = await bridge.resources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((resource) => resource.server === "everything")).toBe(true);
    const doc = resources.find((resource) => resource.uri.startsWith("demo://resource/static/document/"));
    expect(doc).toBeDefined();
    expect((await bridge.readResource(doc?.uri as string)).text.length).toBeGreaterThan(0);
    const blob = await bridge.readResource("demo://resource/dynamic/blob/2");
    expect(blob.text).toMatch(/^\[blob: demo:\/\/resource\/dynamic\/blob\/2 \(.+, [\d.]+ (B|KB)\)\]$/);

    const args = (await bridge.prompts()).find((prompt) => prompt.prompt === "args-prompt");
    expect(args).toMatchObject({
      name: "mcp_everything_args-prompt",
      server: "everything",
      title: "Arguments Prompt",
    });
    const messages = await bridge.getPrompt("mcp_everything_args-prompt", { city: "Paris" });
    expect(messages.messages[0]).toMatchObject({ role: "user", text: "What's weather in Paris?" });
    await expect(bridge.getPrompt("mcp_everything_args-prompt", {})).rejects.toMatchObject({
      code: ErrorCode.InvalidArguments,
      server: "everything",
      message: expect.stringContaining('"city"'),
    });
    const embedded = await bridge.getPrompt("everything/resource-prompt", {
      resourceType: "Text",
      resourceId: "1",
    });
    expect(embedded.messages.some((message) => message.content.type === "resource")).toBe(true);

    const departments = await bridge.complete(
      { type: "prompt", name: "everything/completable-prompt" },
      {
        name: "department",
        value: "E",
      },
    );
    expect(departments.values).toEqual(["Engineering"]);
    const people = await bridge.complete(
      { type: "prompt", name: "mcp_everything_completable-prompt" },
      { name: "name", value: "" },
      { context: { department: "Sales" } },
    );
    expect(people.values).toEqual(["David", "Eve", "Frank"]);
  });

  it("needs an explicit server for a URI two servers serve, and names both", async () => {
    await using bridge = await startBridge({ servers: { one: everything, two: everything } });
    const uri = "demo://resource/dynamic/text/1";
    await expect(bridge.readResource(uri)).rejects.toMatchObject({
      code: ErrorCode.ResourceAmbiguous,
      message: expect.stringMatching(/"one" and "two"/),
    });
    const read = await bridge.readResource(uri, { server: "two" });
    expect(read.server).toBe("two");
    // Prompt names stay distinct across servers, by the tools' naming rule.
    const names = (await bridge.prompts()).map((prompt) => prompt.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("mcp_one_simple-prompt");
    expect(names).toContain("mcp_two_simple-prompt");
  });

  it("declares roots and answers roots/list; setRoots takes effect", async () => {
    await using bridge = await startBridge({ servers: { everything: { ...everything, roots: ["/tmp"] } } });
    await until(() => bridge.tool("mcp_everything_get-roots-list") !== undefined);
    const listed = await bridge.call("everything/get-roots-list", {});
    expect(listed.text).toContain("file:///tmp");
    await bridge.setRoots(["/var"]);
    // The server re-asks for roots when told they changed; wait (bounded) for its answer to show it.
    let after = "";
    for (let attempt = 0; attempt < 100 && !after.includes("file:///var"); attempt++) {
      after = (await bridge.call("everything/get-roots-list", {})).text;
      if (!after.includes("file:///var")) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(after).toContain("file:///var");
    expect(after).not.toContain("file:///tmp");
  });
});

describe("resource subscriptions (server-everything)", () => {
  it("delivers resources/updated to the subscriber until it unsubscribes", async () => {
    await using bridge = await startBridge({ servers: { everything } });
    const uri = "demo://resource/dynamic/text/1";
    const updates: { server: string; uri: string }[] = [];
    const unsubscribe = await bridge.subscribe(uri, (update) => updates.push(update));
    await bridge.call("everything/toggle-subscriber-updates", {});
    await until(() => updates.length > 0);
    expect(updates[0]).toEqual({ server: "everything", uri });
    await unsubscribe();
    await expect(bridge.subscribe("nowhere://z", () => {})).rejects.toMatchObject({
      code: ErrorCode.ResourceNotFound,
    });
  });
});
