import { createHmac } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, RequestForwarder, startGateway } from "../../src/apps/gateway/index.js";
import type { RawServers } from "../../src/bridge/api.js";
import { type Bridge, startBridge } from "../../src/index.js";
import { stdioEntry } from "../fixtures/servers/index.js";
import { connect, type Era, textOf } from "../gateway/client.js";
import { capturingLogger, tempDirs, until } from "../helpers/wait.js";

/**
 * A policy `ask` reaching a person through each channel: the calling client (form elicitation), the
 * local page (opened with fetch), a webhook (a local HTTP server that checks the signature and
 * answers on the signed callback), and nobody answering in time. The server is a real process that
 * records each call it receives, so a denied call is seen not to arrive.
 */
const tempDir = tempDirs("mcp-bridge-approvals-");

interface Setup {
  /** The exposed name of the server's read_file. */
  read: string;
  bridge: Bridge;
  gateway: Gateway;
  record: string;
  audit: string;
  messages: string[];
}

function approvalGateway(approvals: Record<string, unknown> | undefined): () => Setup {
  const setup = {} as Setup;
  beforeAll(async () => {
    const dir = tempDir();
    setup.record = join(dir, "calls.log");
    setup.audit = join(dir, "audit.jsonl");
    writeFileSync(setup.record, "");
    const { logger, messages } = capturingLogger();
    setup.messages = messages;
    const servers: RawServers = { files: stdioEntry("records-calls", {}, ["--record", setup.record]) };
    const forwarder = new RequestForwarder();
    setup.bridge = await startBridge({
      servers,
      logger,
      env: { PATH: process.env.PATH },
      onElicitation: forwarder.elicitation,
      settings: {
        policy: { rules: [{ tool: "read_file", action: "ask", reason: "reads need a yes" }] },
        audit: { file: setup.audit, full: true },
        ...(approvals ? { approvals } : {}),
      },
    });
    setup.read = setup.bridge.tools().find((tool) => tool.tool === "read_file")?.name ?? "";
    setup.gateway = await startGateway({
      bridge: setup.bridge,
      forwarder,
      tokens: [{ token: "token-ana", client: "ana" }],
    });
  }, 60_000);
  afterAll(async () => {
    await setup.gateway?.close();
    await setup.bridge?.close();
  });
  return () => setup;
}

/** A client of the gateway that declares form elicitation and answers every question with `approve`. */
async function approvingClient(url: string, mode: Era, approve: boolean) {
  const asked: string[] = [];
  const client = new Client(
    { name: "asks-its-user", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: mode === "2025-11-25" ? "legacy" : { pin: mode } },
    },
  );
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { approve } };
  });
  const headers = { authorization: "Bearer token-ana" };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return Object.assign(client, { asked, [Symbol.asyncDispose]: () => client.close() });
}

function decisions(audit: string): { decision: string; approval?: { by: string; channel: string } }[] {
  return readFileSync(audit, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((record) => record.kind === "decision");
}

const SECRET_PATH = "postgres://app:hunter2secret@db/x";

describe("a policy ask answered by the calling client (form elicitation)", () => {
  const setup = approvalGateway(undefined);

  it("runs the call once the client's person allows it, and records who did", async () => {
    const { gateway, record, audit, read } = setup();
    await using client = await approvingClient(gateway.url, "2025-11-25", true);
    const result = await client.callTool({ name: read, arguments: { path: SECRET_PATH } });
    expect(textOf(result)).toBe(`contents of ${SECRET_PATH}`);
    expect(client.asked).toHaveLength(1);
    expect(client.asked[0]).toContain('Allow tool "read_file" of server "files"?');
    expect(client.asked[0]).toContain("Asked by: ana");
    expect(client.asked[0]).toContain("reads need a yes");
    // The question masks the password in the argument, as the log redaction does.
    expect(client.asked[0]).not.toContain("hunter2secret");
    expect(readFileSync(record, "utf8")).toContain("read_file");
    expect(decisions(audit).at(-1)).toMatchObject({
      decision: "approved",
      approval: { by: "ana", channel: "client" },
    });
  });

  it("asks a 2026-07-28 client in an input round, and runs the call once allowed", async () => {
    const { gateway, audit, read } = setup();
    await using client = await approvingClient(gateway.url, "2026-07-28", true);
    const result = await client.callTool({ name: read, arguments: { path: "/modern" } });
    expect(textOf(result)).toBe("contents of /modern");
    expect(client.asked).toHaveLength(1);
    expect(decisions(audit).at(-1)).toMatchObject({ approval: { by: "ana", channel: "client" } });
  });

  it("denies the call when the person says no, without sending it", async () => {
    const { gateway, record, audit, read } = setup();
    const before = readFileSync(record, "utf8");
    await using client = await approvingClient(gateway.url, "2025-11-25", false);
    const result = await client.callTool({ name: read, arguments: { path: "/no" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/did not approve/);
    expect(readFileSync(record, "utf8")).toBe(before);
    expect(decisions(audit).at(-1)).toMatchObject({ decision: "deny", approval: { channel: "client" } });
  });

  it("still says nobody can be asked to a client without elicitation and no approvals setting", async () => {
    const { gateway, read } = setup();
    await using client = await connect(gateway.url, "2025-11-25", "token-ana");
    const result = await client.callTool({ name: read, arguments: { path: "/plain" } });
    expect(textOf(result)).toMatch(/nobody can be asked/);
  });
});

/** The page URL the bridge logged for the newest question. */
async function pageUrl(messages: string[], seen: number): Promise<string> {
  await until(() => messages.length > seen && messages.some((m, i) => i >= seen && m.includes("/approve/")));
  const line = messages.filter((m, i) => i >= seen && m.includes("/approve/")).at(-1) ?? "";
  return line.slice(line.indexOf("http://"));
}

describe("a policy ask answered on the local page", () => {
  const setup = approvalGateway({ page: true });

  it("serves the question on 127.0.0.1 at a one-time path, and runs the call once allowed", async () => {
    const { gateway, record, audit, messages, read } = setup();
    await using client = await connect(gateway.url, "2025-11-25", "token-ana");
    const seen = messages.length;
    const call = client.callTool({ name: read, arguments: { path: SECRET_PATH } });
    const url = await pageUrl(messages, seen);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approve\/[A-Za-z0-9_-]{43}$/);
    const page = await (await fetch(url)).text();
    expect(page).toContain("read_file");
    expect(page).toContain("Asked by: <b>ana</b>");
    expect(page).not.toContain("hunter2secret");
    // A guessed path is not found.
    expect((await fetch(`${new URL(url).origin}/approve/guess`)).status).toBe(404);
    const answer = await fetch(url, {
      method: "POST",
      body: new URLSearchParams({ decision: "allow", by: "ops-lead" }),
    });
    expect(answer.status).toBe(200);
    expect(textOf(await call)).toBe(`contents of ${SECRET_PATH}`);
    // One answer per page.
    expect((await fetch(url)).status).toBe(404);
    expect(readFileSync(record, "utf8")).toContain("read_file");
    expect(decisions(audit).at(-1)).toMatchObject({
      decision: "approved",
      approval: { by: "ops-lead", channel: "page" },
    });
  });

  it("denies the call when the page says deny", async () => {
    const { gateway, record, messages, read } = setup();
    const before = readFileSync(record, "utf8");
    await using client = await connect(gateway.url, "2025-11-25", "token-ana");
    const seen = messages.length;
    const call = client.callTool({ name: read, arguments: { path: "/denied" } });
    const url = await pageUrl(messages, seen);
    await fetch(url, { method: "POST", body: new URLSearchParams({ decision: "deny" }) });
    expect(textOf(await call)).toMatch(/did not approve/);
    expect(readFileSync(record, "utf8")).toBe(before);
  });
});

describe("a policy ask offered to a URL-mode client", () => {
  const setup = approvalGateway({ page: true });

  it("sends the page's URL as a URL elicitation; the answer on the page runs the call", async () => {
    const { gateway, audit, read } = setup();
    const urls: string[] = [];
    const client = new Client(
      { name: "opens-urls", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: "legacy" } },
    );
    client.setRequestHandler("elicitation/create", async (request) => {
      if (request.params.mode === "url") urls.push(request.params.url);
      return { action: "accept" };
    });
    const headers = { authorization: "Bearer token-ana" };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
    );
    try {
      const call = client.callTool({ name: read, arguments: { path: "/by-url" } });
      await until(() => urls.length > 0);
      const url = urls[0] as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/approve\//);
      await fetch(url, { method: "POST", body: new URLSearchParams({ decision: "allow", by: "on-call" }) });
      expect(textOf(await call)).toBe("contents of /by-url");
      expect(decisions(audit).at(-1)).toMatchObject({ approval: { by: "on-call", channel: "page" } });
    } finally {
      await client.close();
    }
  });
});

describe("approvals with client: false", () => {
  const setup = approvalGateway({ page: true, client: false });

  it("sends the question to the page even when the calling client could answer it", async () => {
    const { gateway, audit, messages, read } = setup();
    await using client = await approvingClient(gateway.url, "2025-11-25", true);
    const seen = messages.length;
    const call = client.callTool({ name: read, arguments: { path: "/second-person" } });
    const url = await pageUrl(messages, seen);
    await fetch(url, { method: "POST", body: new URLSearchParams({ decision: "allow", by: "reviewer" }) });
    expect(textOf(await call)).toBe("contents of /second-person");
    expect(client.asked).toEqual([]);
    expect(decisions(audit).at(-1)).toMatchObject({ approval: { by: "reviewer", channel: "page" } });
  });
});

describe("a policy ask nobody answers", () => {
  const setup = approvalGateway({ page: true, timeout: "300ms" });

  it("is denied once the timeout passes, and the audit says so", async () => {
    const { gateway, record, audit, read } = setup();
    await using client = await connect(gateway.url, "2025-11-25", "token-ana");
    const result = await client.callTool({ name: read, arguments: { path: "/late" } });
    expect(textOf(result)).toMatch(/nobody answered in time/);
    expect(readFileSync(record, "utf8")).toBe("");
    expect(decisions(audit).at(-1)).toMatchObject({ decision: "deny", approval: { channel: "timeout" } });
  });
});

/** A webhook receiver: checks each POST's signature, and answers on its callback when told to. */
class Receiver {
  readonly posts: { body: Record<string, unknown>; signed: boolean }[] = [];
  #server: Server | undefined;
  constructor(readonly secret: string) {}

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const wanted = `sha256=${createHmac("sha256", this.secret).update(text).digest("hex")}`;
        this.posts.push({ body: JSON.parse(text), signed: req.headers["x-mcp-bridge-signature"] === wanted });
        res.writeHead(202).end();
      });
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  close(): void {
    this.#server?.close();
  }
}

describe("a policy ask answered through the webhook", () => {
  const secret = "a-webhook-secret-of-32-characters";
  const receiver = new Receiver(secret);
  const approvals: Record<string, unknown> = { webhook: { url: "", secret } };
  beforeAll(async () => {
    (approvals.webhook as { url: string }).url = await receiver.start();
  });
  afterAll(() => receiver.close());
  const setup = approvalGateway(approvals);

  it("POSTs the signed question and takes the answer on the signed callback only", async () => {
    const { gateway, record, audit, read } = setup();
    await using client = await connect(gateway.url, "2025-11-25", "token-ana");
    const call = client.callTool({ name: read, arguments: { path: SECRET_PATH } });
    await until(() => receiver.posts.length > 0);
    const post = receiver.posts[0] as (typeof receiver.posts)[number];
    expect(post.signed).toBe(true);
    expect(post.body).toMatchObject({ server: "files", tool: "read_file", caller: "ana" });
    expect(JSON.stringify(post.body)).not.toContain("hunter2secret");
    const callback = String(post.body.callback);
    const id = String(post.body.id);
    expect(callback).toContain(createHmac("sha256", secret).update(id).digest("hex"));
    // A callback with a wrong signature is refused and changes nothing.
    const forged = callback.replace(/sig=[0-9a-f]+/, `sig=${"0".repeat(64)}`);
    const refused = await fetch(forged, {
      method: "POST",
      body: JSON.stringify({ approved: true, by: "mallory" }),
    });
    expect(refused.status).toBe(403);
    const answered = await fetch(callback, {
      method: "POST",
      body: JSON.stringify({ approved: true, by: "bob" }),
    });
    expect(answered.status).toBe(200);
    expect(textOf(await call)).toBe(`contents of ${SECRET_PATH}`);
    expect(readFileSync(record, "utf8")).toContain("read_file");
    expect(decisions(audit).at(-1)).toMatchObject({
      decision: "approved",
      approval: { by: "bob", channel: "webhook" },
    });
  });
});

describe("approvals in the library (the daemon's path: no client to ask)", () => {
  it("denies at once, saying nobody can be asked, when the webhook cannot be reached or the page cannot listen", async () => {
    const dir = tempDir();
    const record = join(dir, "calls.log");
    writeFileSync(record, "");
    // A port that is taken, and a webhook URL on it that answers nothing useful.
    const taken = createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    const start = (approvals: Record<string, unknown>) =>
      startBridge({
        servers: { files: stdioEntry("records-calls", {}, ["--record", record]) },
        env: { PATH: process.env.PATH },
        settings: { policy: { rules: [{ tool: "read_file", action: "ask" }] }, approvals },
      });
    try {
      const webhook = { url: `http://127.0.0.1:${port}/hook`, secret: "a-webhook-secret-of-32-characters" };
      await using failing = await start({ webhook });
      const name = failing.tools().find((tool) => tool.tool === "read_file")?.name ?? "";
      const refused = await failing.call(name, { path: "/a" }, { onError: "result" });
      expect(textOf(refused)).toMatch(/nobody can be asked/);
      await using busy = await start({ page: true, port });
      const denied = await busy.call(name, { path: "/b" }, { onError: "result" });
      expect(textOf(denied)).toMatch(/nobody can be asked/);
      expect(readFileSync(record, "utf8")).toBe("");
    } finally {
      taken.close();
    }
  });
});
