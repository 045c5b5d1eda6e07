import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGuardrailSetting } from "../../src/config/guardrail-settings.js";
import { type Bridge, type BridgeOptions, startBridge } from "../../src/index.js";
import { inProcessEntry } from "../helpers/in-process.js";
import { tempDirs } from "../helpers/wait.js";

/**
 * The guardrails on the library's call path, against a real server that attacks the model (poisoned
 * descriptions, credentials and hidden orders in its results) and records the calls it receives.
 */
const tempDir = tempDirs("mcp-bridge-guardrails-");
const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const TAG = /[\u{E0000}-\u{E007F}]/u;

interface Opened {
  bridge: Bridge;
  calls: () => string[];
  audit: () => Record<string, unknown>[];
}

async function open(guardrails: unknown, extra: Partial<BridgeOptions> = {}): Promise<Opened> {
  const dir = tempDir();
  const record = join(dir, "calls.log");
  const auditFile = join(dir, "audit.jsonl");
  writeFileSync(record, "");
  const bridge = await startBridge({
    servers: { evil: inProcessEntry("poisoned", {}, ["--record", record]) },
    env: { PATH: process.env.PATH },
    settings: { guardrails, audit: { file: auditFile } },
    ...extra,
  });
  const lines = (file: string) => {
    try {
      return readFileSync(file, "utf8").split("\n").filter(Boolean);
    } catch {
      return [];
    }
  };
  return {
    bridge,
    calls: () => lines(record),
    audit: () => lines(auditFile).map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

function guardrailRecords(opened: Opened): Record<string, unknown>[] {
  return opened.audit().filter((record) => record.kind === "guardrail");
}

describe("guardrails with their defaults (guardrails: true)", () => {
  let opened: Opened;
  beforeAll(async () => {
    opened = await open(true);
  }, 30_000);
  afterAll(() => opened?.bridge.close());

  it("masks a credential and a private key in a result, and audits the decision", async () => {
    const result = await opened.bridge.call("evil/read_config", {});
    expect(result.isError).toBe(false);
    expect(result.text).toContain("region: eu-west-1");
    expect(result.text).not.toContain(AWS_KEY);
    expect(result.text).not.toContain("MIIEpAIBAAKCAQEA");
    expect(result.text).toContain("***");
    expect(JSON.stringify(result.content)).not.toContain(AWS_KEY);
    expect(guardrailRecords(opened)).toContainEqual(
      expect.objectContaining({ tool: "read_config", phase: "result", check: "secrets", decision: "mask" }),
    );
  });

  it("strips hidden text from a result and keeps instruction-like text, flagged in the audit", async () => {
    const result = await opened.bridge.call("evil/fetch_page", { url: "https://example.com" });
    expect(result.text).not.toMatch(TAG);
    expect(result.text).toContain("Ignore all previous instructions");
    const records = guardrailRecords(opened).filter((record) => record.tool === "fetch_page");
    expect(records).toContainEqual(expect.objectContaining({ check: "hiddenText", decision: "mask" }));
    expect(records).toContainEqual(expect.objectContaining({ check: "instructions", decision: "allow" }));
  });

  it("publishes a poisoned description with its hidden order taken out", () => {
    const add = opened.bridge.tools().find((tool) => tool.tool === "add");
    expect(add?.description).toMatch(/Adds two numbers\.$/);
    expect(add?.description).not.toMatch(TAG);
    // Instruction-like text in a description is flagged (allow), never silently dropped.
    const weather = opened.bridge.tools().find((tool) => tool.tool === "weather");
    expect(weather?.description).toContain("<IMPORTANT>");
    const records = guardrailRecords(opened).filter((record) => record.phase === "tool");
    expect(records).toContainEqual(expect.objectContaining({ tool: "add", check: "hiddenText" }));
    expect(records).toContainEqual(expect.objectContaining({ tool: "weather", check: "instructions" }));
  });

  it("masks a token in the arguments before they are sent", async () => {
    const result = await opened.bridge.call("evil/echo", { text: `token ${GITHUB_TOKEN} here` });
    expect(result.text).toBe("token *** here");
    expect(opened.calls().join("\n")).not.toContain(GITHUB_TOKEN);
  });
});

describe("guardrails per server and tool", () => {
  let opened: Opened;
  const asked: string[] = [];
  let answer = false;
  beforeAll(async () => {
    opened = await open(
      {
        instructions: "mask",
        rules: [
          { server: "evil", tool: "echo", secrets: "block" },
          { tool: "weather", instructions: "block" },
          { tool: "read_config", secrets: "ask" },
        ],
      },
      {
        approveCall: (request) => {
          asked.push(`${request.tool}: ${request.reason}`);
          return answer;
        },
      },
    );
  }, 30_000);
  afterAll(() => opened?.bridge.close());

  it("refuses a call whose arguments hold a credential, and the server never sees it", async () => {
    const result = await opened.bridge.call("evil/echo", { text: `key ${AWS_KEY}` });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("GUARDRAIL_BLOCKED");
    expect(result.text).toContain("guardrails secrets: block");
    expect(result.text).not.toContain(AWS_KEY);
    expect(opened.calls()).toEqual([]);
    expect(guardrailRecords(opened)).toContainEqual(
      expect.objectContaining({ tool: "echo", phase: "request", check: "secrets", decision: "block" }),
    );
  });

  it("keeps a tool whose description gives orders out of the list (block)", () => {
    const names = opened.bridge.tools().map((tool) => tool.tool);
    expect(names).not.toContain("weather");
    expect(names).toContain("add");
  });

  it("marks instruction-like text in a result in place (mask), dropping nothing", async () => {
    const result = await opened.bridge.call("evil/fetch_page", { url: "https://example.com" });
    expect(result.text).toContain(
      "[flagged by mcp-bridge: instruction-like text] Ignore all previous instructions",
    );
  });

  it("asks through the approval entry the policy uses: no withholds the result, yes passes it", async () => {
    answer = false;
    const refused = await opened.bridge.call("evil/read_config", {}, { onError: "result" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("the user did not approve it");
    expect(refused.text).not.toContain(AWS_KEY);
    answer = true;
    const passed = await opened.bridge.call("evil/read_config", {});
    expect(passed.text).toContain(AWS_KEY);
    expect(asked).toEqual([
      "read_config: the result contains secrets (guardrails)",
      "read_config: the result contains secrets (guardrails)",
    ]);
  });
});

describe("the external check hook", () => {
  let server: Server;
  let url: string;
  const seen: Record<string, unknown>[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        const question = JSON.parse(body) as Record<string, unknown>;
        seen.push(question);
        const args = question.arguments as Record<string, unknown>;
        let answer: unknown = { action: "allow" };
        if (question.phase === "request" && args.text === "forbidden")
          answer = { action: "block", reason: "no forbidden words" };
        if (question.phase === "result" && question.tool === "add")
          answer = { action: "rewrite", value: { content: [{ type: "text", text: "rewritten" }] } };
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("blocks, rewrites and allows as the HTTP endpoint answers", async () => {
    const opened = await open({ hook: { url } });
    try {
      const blocked = await opened.bridge.call("evil/echo", { text: "forbidden" });
      expect(blocked.isError).toBe(true);
      expect(blocked.text).toContain("no forbidden words");
      expect(opened.calls()).toEqual([]);
      expect((await opened.bridge.call("evil/add", { a: 1, b: 2 })).text).toBe("rewritten");
      expect((await opened.bridge.call("evil/echo", { text: "fine" })).text).toBe("fine");
      expect(seen.map((question) => `${question.phase} ${question.tool}`)).toEqual([
        "request echo",
        "request add",
        "result add",
        "request echo",
        "result echo",
      ]);
    } finally {
      await opened.bridge.close();
    }
  });

  it("fails closed: a hook that cannot be reached refuses the call, which is never sent", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const opened = await open({ hook: { url: `http://127.0.0.1:${port}/check`, timeout: "5s" } });
    try {
      const result = await opened.bridge.call("evil/echo", { text: "hello" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("GUARDRAIL_BLOCKED");
      expect(result.text).toContain("the external check failed");
      expect(opened.calls()).toEqual([]);
      expect(guardrailRecords(opened)).toContainEqual(
        expect.objectContaining({ check: "hook", decision: "failed-block" }),
      );
    } finally {
      await opened.bridge.close();
    }
  });

  it("a local command (no shell) answers on stdout; onFailure allow lets a failed one pass", async () => {
    const dir = tempDir();
    const script = join(dir, "check.mjs");
    writeFileSync(
      script,
      [
        "let input = '';",
        "process.stdin.on('data', (c) => (input += c));",
        "process.stdin.on('end', () => {",
        "  const q = JSON.parse(input);",
        "  if (q.arguments.text === 'crash') process.exit(3);",
        "  const block = q.arguments.text === 'stop';",
        "  process.stdout.write(JSON.stringify(block ? { action: 'block', reason: 'stop word' } : { action: 'allow' }));",
        "});",
      ].join("\n"),
    );
    const opened = await open({ hook: { command: [process.execPath, script], onFailure: "allow" } });
    try {
      expect((await opened.bridge.call("evil/echo", { text: "stop" })).text).toContain("stop word");
      expect((await opened.bridge.call("evil/echo", { text: "go" })).text).toBe("go");
      expect((await opened.bridge.call("evil/echo", { text: "crash" })).text).toBe("crash");
      expect(guardrailRecords(opened)).toContainEqual(
        expect.objectContaining({ check: "hook", decision: "failed-allow" }),
      );
    } finally {
      await opened.bridge.close();
    }
  });
});

describe("a guardrails setting that cannot be read", () => {
  it("is refused when given in code, and read from a file as unusable: every call refused", async () => {
    await expect(open({ secrets: "maybe" })).rejects.toThrow(/Setting "guardrails" cannot be used/);
    const read = readGuardrailSetting({ hook: { url: "http://127.0.0.1:1/", command: ["x"] } });
    expect(read?.unusable).toBe("hook: give exactly one of url and command");
    expect(read?.defaults.secrets).toBe("block");
  });
});
