import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpFixture, startHttpFixture, stdioEntry } from "../fixtures/servers/index.js";
import { cliEnv, cliHome, spawnCli } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";

/** `serve --http` with these arguments; resolves with its /mcp URL once it prints it. */
async function serve(home: string, args: string[], children: ChildProcess[]): Promise<string> {
  const child = spawnCli(["serve", "--http", "0", "--json", ...args], { cwd: home, env: cliEnv(home) });
  children.push(child);
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve did not print its URL: ${err}`)), 25_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}): ${err}`));
    });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
  });
}

interface Answer {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: { message: string } }>;
    content?: { text: string }[];
    tools?: { name: string }[];
  };
  error?: { message: string };
}

/** One 2026-07-28 request, as a client that declared elicitation sends it (no session, any replica). */
async function request(url: string, method: string, params: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
          "io.modelcontextprotocol/clientInfo": { name: "replica-test", version: "1" },
        },
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  return JSON.parse(json) as Answer;
}

const accept = (content: Record<string, string>) => ({ action: "accept", content });

describe("2026-07-28 rounds across gateway replicas sharing --state-keys", () => {
  const children: ChildProcess[] = [];
  let fixture: HttpFixture;
  let a = "";
  let b = "";
  let other = "";
  let tool = "";

  beforeAll(async () => {
    fixture = await startHttpFixture("modern-surface", ["--modern"]);
    const { home } = cliHome({ modern: { type: "http", url: fixture.url, negotiation: "2026-07-28" } });
    const keys = join(home, "state-keys");
    writeFileSync(keys, `k2:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    const otherKeys = join(home, "other-keys");
    writeFileSync(otherKeys, `k9:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    const config = ["-c", join(home, "servers.json")];
    [a, b, other] = await Promise.all([
      serve(home, [...config, "--state-keys", keys], children),
      serve(home, [...config, "--state-keys", keys], children),
      serve(home, [...config, "--state-keys", otherKeys], children),
    ]);
    await until(async () => {
      const listed = await request(a, "tools/list", {});
      tool = listed.result?.tools?.find((t) => t.name.endsWith("two-questions"))?.name ?? "";
      return tool !== "";
    });
  }, 60_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await fixture?.close();
  });

  it("round 1 on A, round 2 on B, the result on A: the upstream's state travels sealed in the token", async () => {
    const first = await request(a, "tools/call", { name: tool, arguments: {} });
    expect(first.result?.resultType).toBe("input_required");
    expect(first.result?.inputRequests?.name?.params.message).toBe("Your name?");
    const t1 = first.result?.requestState ?? "";
    expect(t1).toMatch(/^mcpb1\.k2\./);

    const second = await request(b, "tools/call", {
      name: tool,
      arguments: {},
      requestState: t1,
      inputResponses: { name: accept({ name: "Ada" }) },
    });
    expect(second.error).toBeUndefined();
    expect(second.result?.inputRequests?.colour?.params.message).toBe("Your colour, Ada?");
    const t2 = second.result?.requestState ?? "";
    // The upstream's own state ({"name":"Ada"}) is inside, encrypted: not readable from the token.
    expect(Buffer.from(t2.split(".")[2] ?? "", "base64url").toString("latin1")).not.toContain("Ada");

    // Another call (other arguments) and a gateway with other keys refuse the token.
    const otherCall = await request(b, "tools/call", {
      name: tool,
      arguments: { extra: 1 },
      requestState: t2,
      inputResponses: { colour: accept({ colour: "green" }) },
    });
    expect(otherCall.error?.message).toMatch(/belongs to another tool call/);
    const otherKeys = await request(other, "tools/call", {
      name: tool,
      arguments: {},
      requestState: t2,
      inputResponses: { colour: accept({ colour: "green" }) },
    });
    expect(otherKeys.error?.message).toMatch(/sealed with a key this gateway does not hold/);

    const done = await request(a, "tools/call", {
      name: tool,
      arguments: {},
      requestState: t2,
      inputResponses: { colour: accept({ colour: "green" }) },
    });
    expect(done.error).toBeUndefined();
    expect(done.result?.content?.[0]?.text).toBe("Ada likes green");
  }, 60_000);
});

describe("a 2025-era upstream's question parked on one replica, answered through another", () => {
  const children: ChildProcess[] = [];
  let a = "";
  let b = "";
  let tool = "";

  beforeAll(async () => {
    const { home } = cliHome({ secret: stdioEntry("asks-for-secret") });
    const keys = join(home, "state-keys");
    writeFileSync(keys, `k1:${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
    const secret = join(home, "cluster-secret");
    writeFileSync(secret, randomBytes(32).toString("hex"), { mode: 0o600 });
    const args = ["-c", join(home, "servers.json"), "--state-keys", keys, "--cluster-secret-file", secret];
    [a, b] = await Promise.all([
      serve(home, [...args, "--replica-id", "replica-a"], children),
      serve(home, [...args, "--replica-id", "replica-b"], children),
    ]);
    await until(async () => {
      const listed = await request(a, "tools/list", {});
      tool = listed.result?.tools?.find((t) => t.name.endsWith("login"))?.name ?? "";
      return tool !== "";
    });
  }, 60_000);

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("the retry sent to B is forwarded to A, whose parked call answers it", async () => {
    const first = await request(a, "tools/call", { name: tool, arguments: {} });
    expect(first.result?.resultType).toBe("input_required");
    const asked = Object.values(first.result?.inputRequests ?? {})[0];
    expect(asked?.params.message).toBe("Give me your API key");
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const done = await request(b, "tools/call", {
      name: tool,
      arguments: {},
      requestState: first.result?.requestState,
      inputResponses: { [key as string]: accept({ apiKey: "typed-on-b" }) },
    });
    expect(done.error).toBeUndefined();
    expect(JSON.parse(done.result?.content?.[0]?.text ?? "{}")).toEqual({
      action: "accept",
      content: { apiKey: "typed-on-b" },
    });
  }, 60_000);
});
