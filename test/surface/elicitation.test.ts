import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ElicitationRequest } from "../../src/index.js";
import { startBridge } from "../../src/index.js";
import { until } from "../helpers/wait.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("elicitation (server-everything)", () => {
  it("form mode: the host's answer is sent when it matches the schema, refused (typed, named) when it does not", async () => {
    const requests: ElicitationRequest[] = [];
    let answer: Record<string, unknown> = { name: "Ada" };
    await using bridge = await startBridge({
      servers: { everything },
      onElicitation: (request) => {
        requests.push(request);
        return { action: "accept", content: answer };
      },
    });
    await until(() => bridge.tool("mcp_everything_trigger-elicitation-request") !== undefined);
    const accepted = await bridge.call("everything/trigger-elicitation-request", {});
    expect(accepted.text).toContain("Ada");
    expect(requests[0]).toMatchObject({ server: "everything", mode: "form" });

    answer = { name: 42 };
    await expect(bridge.call("everything/trigger-elicitation-request", {})).rejects.toMatchObject({
      server: "everything",
      tool: "trigger-elicitation-request",
      message: expect.stringContaining("did not match the requested schema"),
    });
    expect((await bridge.call("everything/echo", { message: "ok" })).text).toContain("ok");
  });

  it("URL mode: declared only with a host handler, which receives the URL", async () => {
    const urls: string[] = [];
    await using withHandler = await startBridge({
      servers: { everything },
      onElicitation: (request) => {
        if (request.mode === "url" && request.url) urls.push(request.url);
        return { action: "accept", content: {} };
      },
    });
    await until(() => withHandler.tool("mcp_everything_trigger-url-elicitation") !== undefined);
    const result = await withHandler.call("everything/trigger-url-elicitation", {
      url: "https://example.com/consent",
    });
    expect(result.isError).toBe(false);
    expect(urls).toEqual(["https://example.com/consent"]);

    await using without = await startBridge({ servers: { everything } });
    await until(() => without.tool("mcp_everything_trigger-elicitation-request") !== undefined);
    expect(without.tool("mcp_everything_trigger-url-elicitation")).toBeUndefined();
  });
});
