import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../src/apps/gateway/index.js";
import { codeModeBridge } from "../../src/codemode/code-mode-bridge.js";
import { executeCode } from "../../src/codemode/execute-code.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { connect, textOf } from "../gateway/client.js";
import { tempDirs } from "../helpers/wait.js";

/**
 * A program's calls are calls by the client that sent it: the same caller for the policy and the
 * audit log, the same profile, whichever face brought the program (MCP, REST, the library).
 */
const tempDir = tempDirs("mcp-bridge-codemode-identity-");

let bridge: Bridge;
let direct: Gateway;
let coded: Gateway;
let audit: string;

const TOKENS = [
  { token: "t-ci", client: "ci-bot" },
  { token: "t-dev", client: "dev" },
  { token: "t-exec", client: "exec-only", profile: { tools: ["execute_code"] } },
  { token: "t-a", client: "a-only", profile: { servers: ["a"] } },
];

beforeAll(async () => {
  audit = join(tempDir(), "audit.jsonl");
  bridge = await startBridge({
    servers: { a: stdioEntry("normal"), b: stdioEntry("normal") },
    catalogCache: false,
    settings: {
      policy: {
        rules: [
          { caller: "ci-*", server: "b", action: "deny", reason: "no b for ci" },
          { caller: "asker", action: "ask" },
        ],
      },
      audit: { file: audit },
    },
  });
  direct = await startGateway({ bridge, tokens: TOKENS });
  coded = await startGateway({ bridge: codeModeBridge(bridge), tokens: TOKENS });
}, 60_000);
afterAll(async () => {
  await coded?.close();
  await direct?.close();
  await bridge?.close();
});

const nameOf = (server: string) => bridge.tools({ server }).find((t) => t.tool === "add")?.name ?? "";

/** Calls a and b from a program; says what each call gave. */
const BOTH = `const out = [];
  for (const s of ["a", "b"]) {
    try { out.push(s + "=" + (await tools[s].add({ a: 2, b: 3 })).text); }
    catch (e) { out.push(s + "!" + e.message); }
  }
  return out;`;

function decisions(): string[] {
  return readFileSync(audit, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((r) => r.kind === "decision")
    .map((r) => `${r.caller} ${r.server} ${r.decision}`);
}

describe("a program's calls are its client's calls", () => {
  it("over MCP: a caller denied b directly is denied b through a program, and audited as itself", async () => {
    await using ci = await connect(direct.url, "2025-11-25", "t-ci");
    const refused = await ci.callTool({ name: nameOf("b"), arguments: { a: 2, b: 3 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("no b for ci");

    const before = decisions().length;
    await using ciCode = await connect(coded.url, "2025-11-25", "t-ci");
    const run = await ciCode.callTool({ name: "execute_code", arguments: { code: BOTH } });
    expect(run.isError).toBeFalsy();
    const [a, b] = JSON.parse(textOf(run)) as string[];
    expect(a).toBe("a=5");
    expect(b).toMatch(/^b!.*no b for ci/);
    // The audit log names the program's caller for each of its calls, never "".
    expect(decisions().slice(before)).toEqual(["ci-bot a allow", "ci-bot b deny"]);

    await using dev = await connect(coded.url, "2025-11-25", "t-dev");
    const allowed = await dev.callTool({ name: "execute_code", arguments: { code: BOTH } });
    expect(JSON.parse(textOf(allowed))).toEqual(["a=5", "b=5"]);
  });

  it("a profile of execute_code alone reaches no server's tool", async () => {
    await using client = await connect(coded.url, "2025-11-25", "t-exec");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["execute_code"]);
    const run = await client.callTool({
      name: "execute_code",
      arguments: {
        code: `const keys = Object.keys(tools); ${BOTH.replace("return out;", "return [keys, out];")}`,
      },
    });
    const [keys, out] = JSON.parse(textOf(run)) as [string[], string[]];
    expect(keys).toEqual([]);
    expect(out.every((line) => line.includes("!"))).toBe(true);
  });

  it("a profile of servers sees the code-mode tools, over those servers only", async () => {
    await using client = await connect(coded.url, "2025-11-25", "t-a");
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "describe_tools",
      "execute_code",
      "search_tools",
    ]);
    const run = await client.callTool({
      name: "execute_code",
      arguments: {
        code: `const keys = Object.keys(tools); ${BOTH.replace("return out;", "return [keys, out];")}`,
      },
    });
    const [keys, out] = JSON.parse(textOf(run)) as [string[], string[]];
    expect(keys).toEqual(["a"]);
    expect(out[0]).toBe("a=5");
    expect(out[1]).toMatch(/^b!/);
    const search = textOf(
      await client.callTool({ name: "search_tools", arguments: { query: "add numbers" } }),
    );
    expect(search).toContain("tools.a.add");
    expect(search).not.toContain("tools.b.");
    const described = textOf(
      await client.callTool({ name: "describe_tools", arguments: { names: ["a.add", "b.add"] } }),
    );
    expect(described).toContain("Unknown: b.add");
  });

  it("over REST: POST /tools/execute_code carries the caller and the profile", async () => {
    const base = coded.url.replace(/\/mcp$/, "");
    const post = (token: string, code: string) =>
      fetch(`${base}/tools/execute_code`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ code }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { text: string } }));
    const ci = await post("t-ci", BOTH);
    expect(ci.status).toBe(200);
    const [a, b] = JSON.parse(ci.body.text) as string[];
    expect(a).toBe("a=5");
    expect(b).toMatch(/no b for ci/);
    const onlyA = await post("t-a", "return Object.keys(tools);");
    expect(JSON.parse(onlyA.body.text)).toEqual(["a"]);
    const exec = await post("t-exec", "return Object.keys(tools);");
    expect(JSON.parse(exec.body.text)).toEqual([]);
  });

  it("in the library: executeCode takes the caller, its reach and its answers to `ask`", async () => {
    const run = await executeCode(bridge, BOTH, { caller: "ci-lib" });
    expect((run.value as string[])[1]).toMatch(/no b for ci/);
    const reached = await executeCode(bridge, "return Object.keys(tools);", { reach: { servers: ["b"] } });
    expect(reached.value).toEqual(["b"]);
    const asked: string[] = [];
    const approved = await executeCode(bridge, BOTH, {
      caller: "asker",
      approveCall: (request) => {
        asked.push(`${request.caller} ${request.server}`);
        return request.server === "a";
      },
    });
    expect(asked).toEqual(["asker a", "asker b"]);
    expect((approved.value as string[])[0]).toBe("a=5");
    expect((approved.value as string[])[1]).toMatch(/^b!/);
  });

  it("a policy `ask` in a program behind the gateway is a deny, as for a direct call", async () => {
    const gateway = await startGateway({
      bridge: codeModeBridge(bridge),
      tokens: [{ token: "t-asker", client: "asker" }],
    });
    try {
      await using client = await connect(gateway.url, "2025-11-25", "t-asker");
      const run = await client.callTool({ name: "execute_code", arguments: { code: BOTH } });
      const out = JSON.parse(textOf(run)) as string[];
      expect(out.every((line) => /nobody can be asked/.test(line))).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
