import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bridgeToolName } from "../../src/bridge/features/resource-tools.js";
import { executeOpenAIToolCalls, startBridge, toAnthropicTools, toOpenAITools } from "../../src/index.js";

const everything = {
  command: process.execPath,
  args: [join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
};

describe("resource tools for the model", () => {
  it("are named by the configured format", () => {
    expect(bridgeToolName("mcp_{server}_{tool}", "list_resources")).toBe("mcp_list_resources");
    expect(bridgeToolName("{server}__{tool}", "read_resource")).toBe("read_resource");
    expect(bridgeToolName("x-{server}-{tool}", "read_resource")).toBe("x-read_resource");
  });

  it("are off by default and, when on, exported through the adapters and callable", async () => {
    await using off = await startBridge({ servers: { everything } });
    expect(off.tool("mcp_read_resource")).toBeUndefined();

    await using bridge = await startBridge({ servers: { everything }, resourceTools: true });
    const names = bridge.tools().map((tool) => tool.name);
    expect(names).toContain("mcp_list_resources");
    expect(names).toContain("mcp_read_resource");
    expect(toOpenAITools(bridge.tools()).map((tool) => tool.function.name)).toContain("mcp_read_resource");
    expect(toAnthropicTools(bridge.tools()).map((tool) => tool.name)).toContain("mcp_list_resources");

    const listing = await bridge.call("mcp_list_resources", {});
    expect(listing.text).toContain(
      "demo://resource/dynamic/text/{resourceId} (template, server: everything)",
    );
    const [message, missing] = await executeOpenAIToolCalls(bridge, [
      {
        id: "1",
        type: "function",
        function: {
          name: "mcp_read_resource",
          arguments: JSON.stringify({ uri: "demo://resource/dynamic/text/9" }),
        },
      },
      {
        id: "2",
        type: "function",
        function: { name: "mcp_read_resource", arguments: JSON.stringify({ uri: "nowhere://9" }) },
      },
    ]);
    expect(message?.content).toContain("Resource 9");
    expect(missing?.content).toMatch(/^Error: .*nowhere:\/\/9.*\[RESOURCE_NOT_FOUND\]/);
  });
});
