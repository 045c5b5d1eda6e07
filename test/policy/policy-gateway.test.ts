import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { connect, textOf } from "../gateway/client.js";
import { tempDirs } from "../helpers/wait.js";

/** The gateway passes each client's name as the policy's caller; nobody can answer an `ask` there. */
const tempDir = tempDirs("mcp-bridge-policy-gateway-");

describe("the call policy behind the gateway", () => {
  let bridge: Bridge;
  let gateway: Gateway;
  let record: string;
  let audit: string;

  beforeAll(async () => {
    const dir = tempDir();
    record = join(dir, "calls.log");
    audit = join(dir, "audit.jsonl");
    writeFileSync(record, "");
    bridge = await startBridge({
      servers: { files: stdioEntry("records-calls", {}, ["--record", record]) },
      env: { PATH: process.env.PATH },
      settings: {
        policy: {
          rules: [
            { caller: "intern", tool: "delete_file", action: "deny", reason: "interns may not delete" },
            { tool: "read_file", action: "ask" },
          ],
        },
        audit: { file: audit },
      },
    });
    gateway = await startGateway({
      bridge,
      tokens: [
        { token: "token-intern", client: "intern" },
        { token: "token-admin", client: "admin" },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await bridge?.close();
  });

  it("denies per caller, and an ask where nobody can be asked, without reaching the server", async () => {
    const name = bridge.tools().find((tool) => tool.tool === "delete_file")?.name ?? "";
    const readName = bridge.tools().find((tool) => tool.tool === "read_file")?.name ?? "";
    await using intern = await connect(gateway.url, "2025-11-25", "token-intern");
    await using admin = await connect(gateway.url, "2025-11-25", "token-admin");
    const denied = await intern.callTool({ name, arguments: { path: "/a" } });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain("interns may not delete");
    const allowed = await admin.callTool({ name, arguments: { path: "/b" } });
    expect(textOf(allowed)).toBe("deleted /b");
    const asked = await admin.callTool({ name: readName, arguments: { path: "/c" } });
    expect(asked.isError).toBe(true);
    expect(textOf(asked)).toMatch(/nobody can be asked/);
    expect(readFileSync(record, "utf8")).toBe('delete_file {"path":"/b"}\n');
    const callers = readFileSync(audit, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((r) => r.kind === "decision")
      .map((r) => `${r.caller} ${r.tool} ${r.decision}`);
    expect(callers).toEqual(["intern delete_file deny", "admin delete_file allow", "admin read_file deny"]);
  });
});
