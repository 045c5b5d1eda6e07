import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/index.js";
import { ErrorCode, startBridge } from "../../src/index.js";
import type { LogFields } from "../../src/util/logger.js";
import { until } from "../helpers/wait.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

function recordingLogger(): {
  logger: Logger;
  lines: { level: string; message: string; fields?: LogFields }[];
} {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
  return { logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }, lines };
}

describe("server-everything beyond tools (stdio)", () => {
  it("lists and reads resources, templates and prompts with titles, and completes arguments", async () => {
    await using bridge = await startBridge({ servers: { everything } });
    const resources = await bridge.resources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((resource) => resource.server === "everything")).toBe(true);
    const doc = resources.find((resource) => resource.uri.startsWith("demo://resource/static/document/"));
    expect(doc).toBeDefined();

    const read = await bridge.readResource(doc?.uri as string);
    expect(read.server).toBe("everything");
    expect(read.text.length).toBeGreaterThan(0);

    const templates = await bridge.resourceTemplates();
    expect(templates.map((template) => template.uriTemplate)).toContain(
      "demo://resource/dynamic/text/{resourceId}",
    );

    // A URI only a template covers is routed to the template's server.
    const dynamic = await bridge.readResource("demo://resource/dynamic/text/3");
    expect(dynamic.text).toContain("Resource 3");
    const blob = await bridge.readResource("demo://resource/dynamic/blob/2");
    expect(blob.text).toMatch(/^\[blob: demo:\/\/resource\/dynamic\/blob\/2 \(.+, [\d.]+ (B|KB)\)\]$/);
    const bytes = await bridge.readResource("demo://resource/dynamic/blob/2", { binary: true });
    expect(bytes.parts[0]?.bytes?.byteLength).toBeGreaterThan(0);

    const truncated = await bridge.readResource(doc?.uri as string, { maxResultChars: 60 });
    if (read.text.length > 60) {
      expect(truncated.text.length).toBeLessThanOrEqual(60);
      expect(truncated.truncated?.droppedChars).toBeGreaterThan(0);
    }

    const prompts = await bridge.prompts();
    const args = prompts.find((prompt) => prompt.prompt === "args-prompt");
    expect(args).toMatchObject({
      name: "mcp_everything_args-prompt",
      server: "everything",
      title: "Arguments Prompt",
    });
    const messages = await bridge.getPrompt("mcp_everything_args-prompt", { city: "Paris" });
    expect(messages.messages[0]).toMatchObject({ role: "user", text: "What's weather in Paris?" });
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

    const tool = bridge.tool("mcp_everything_echo");
    expect(tool?.title).toBeTypeOf("string");
  });

  it("reports bad input as typed errors naming server and item, and keeps working", async () => {
    await using bridge = await startBridge({ servers: { everything } });
    await expect(bridge.readResource("nowhere://x")).rejects.toMatchObject({
      code: ErrorCode.ResourceNotFound,
      item: "nowhere://x",
    });
    await expect(bridge.readResource("nowhere://x", { server: "everything" })).rejects.toMatchObject({
      server: "everything",
      item: "nowhere://x",
    });
    await expect(bridge.getPrompt("mcp_everything_args-prompt", {})).rejects.toMatchObject({
      code: ErrorCode.InvalidArguments,
      server: "everything",
      message: expect.stringContaining('"city"'),
    });
    await expect(bridge.getPrompt("no-such-prompt")).rejects.toMatchObject({
      code: ErrorCode.PromptNotFound,
    });
    await expect(bridge.readResource("x://y", { server: "nope" })).rejects.toMatchObject({
      code: ErrorCode.ServerNotFound,
    });
    const echo = await bridge.call("everything/echo", { message: "still fine" });
    expect(echo.text).toContain("still fine");
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

  it("passes server log messages to the logger with server name and level (logLevel set)", async () => {
    const { logger, lines } = recordingLogger();
    await using bridge = await startBridge({
      servers: { everything: { ...everything, logLevel: "debug" } },
      logger,
    });
    await bridge.call("everything/toggle-simulated-logging", {});
    await until(() =>
      lines.some((line) => line.fields?.server === "everything" && line.fields?.level !== undefined),
    );
    const line = lines.find((entry) => entry.fields?.level !== undefined);
    expect(line?.message).toMatch(/^\[everything\] .*message/);
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
