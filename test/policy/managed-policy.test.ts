import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../src/index.js";
import { loadManagedPolicy } from "../../src/policy/managed-policy.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { tempDirs } from "../helpers/wait.js";

/** The managed policy file: evaluated first, never loosened by the config, believed only when safe. */
const tempDir = tempDirs("mcp-bridge-managed-");

function policyFile(policy: unknown, mode = 0o644): string {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  const file = join(dir, "policy.json");
  writeFileSync(file, JSON.stringify(policy));
  chmodSync(file, mode);
  return file;
}

function otherUid(): number | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    execFileSync("id", ["-u", "mcpbridge-other"], { stdio: "ignore" });
  } catch {
    try {
      execFileSync("useradd", ["-M", "-r", "mcpbridge-other"], { stdio: "ignore" });
    } catch {
      return undefined;
    }
  }
  return Number(execFileSync("id", ["-u", "mcpbridge-other"], { encoding: "utf8" }).trim());
}

describe("the managed policy", () => {
  let bridge: Bridge;
  let file: string;

  beforeAll(async () => {
    file = policyFile({ policy: { rules: [{ tool: "delete_*", action: "deny", reason: "company rule" }] } });
    bridge = await startBridge({
      servers: { files: stdioEntry("records-calls") },
      env: { PATH: process.env.PATH, MCP_BRIDGE_POLICY_FILE: file },
      settings: { policy: { default: "allow", rules: [{ tool: "*", action: "allow" }] } },
    });
  }, 30_000);
  afterAll(() => bridge?.close());

  it("cannot be loosened by a config allow", async () => {
    const result = await bridge.call("files/delete_file", { path: "/x" });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("rule #1 of the managed policy: company rule");
    expect((await bridge.call("files/echo", { text: "hi" })).text).toBe("hi");
  });

  it("is refused (every call denied) when others could change it, or when a named file is missing", () => {
    const open = policyFile({ rules: [] }, 0o666);
    expect(loadManagedPolicy({ MCP_BRIDGE_POLICY_FILE: open })?.unusable).toMatch(/lets others change it/);
    const folder = policyFile({ rules: [] });
    chmodSync(join(folder, ".."), 0o777);
    expect(loadManagedPolicy({ MCP_BRIDGE_POLICY_FILE: folder })?.unusable).toMatch(/lets others replace it/);
    expect(loadManagedPolicy({ MCP_BRIDGE_POLICY_FILE: "/nonexistent/policy.json" })).toMatchObject({
      default: "deny",
      unusable: expect.stringMatching(/does not exist/),
    });
    expect(loadManagedPolicy({ MCP_BRIDGE_POLICY_FILE: policyFile("not json{") })?.unusable).toMatch(
      /not valid JSON|cannot be used/,
    );
  });

  it("is refused when another user owns it", (context) => {
    const uid = otherUid();
    if (uid === undefined) {
      context.skip("needs root to create a second user");
      return;
    }
    const planted = policyFile({ rules: [] });
    chownSync(planted, uid, uid);
    expect(loadManagedPolicy({ MCP_BRIDGE_POLICY_FILE: planted })?.unusable).toMatch(/owned by uid/);
  });

  it("a broken managed policy denies every call, with the reason", async () => {
    const broken = await startBridge({
      servers: { files: stdioEntry("records-calls") },
      env: { PATH: process.env.PATH, MCP_BRIDGE_POLICY_FILE: policyFile({ rules: [{ action: "nope" }] }) },
    });
    try {
      const result = await broken.call("files/echo", { text: "hi" });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/managed policy file .* cannot be used/);
    } finally {
      await broken.close();
    }
  });
});
