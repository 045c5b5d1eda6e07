import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepAliveFetch } from "../../src/sdk/keepalive-fetch.js";
import { listen } from "../helpers/http-servers.js";
import { until } from "../helpers/wait.js";

const manual = { redirect: "manual" } as const;

describe("keepAliveFetch", () => {
  it("streams a response: the first SSE event is readable while the server still holds the rest", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await using server = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      void held.then(() => res.end("data: second\n\n"));
    });
    const response = await keepAliveFetch()(server.url, { ...manual, method: "POST", body: "{}" });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe("data: first\n\n");
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += Buffer.from(chunk.value).toString();
    expect(rest).toBe("data: second\n\n");
  });

  it("reuses one socket for requests one after another", async () => {
    const ports: number[] = [];
    await using server = await listen((req, res) => {
      ports.push(req.socket.remotePort as number);
      res.end("ok");
    });
    const fetchFn = keepAliveFetch();
    for (let i = 0; i < 3; i++) expect(await (await fetchFn(server.url, manual)).text()).toBe("ok");
    expect(new Set(ports).size).toBe(1);
  });

  it("sends method, headers and body; returns status, headers and a decompressed body", async () => {
    await using server = await listen((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        res.writeHead(201, {
          "content-encoding": "gzip",
          "x-seen": `${req.method} ${req.headers["x-token"]} ${body}`,
        });
        res.end(gzipSync("decoded"));
      });
    });
    const response = await keepAliveFetch()(server.url, {
      ...manual,
      method: "POST",
      headers: new Headers({ "x-token": "t" }),
      body: "hello",
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-seen")).toBe("POST t hello");
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(await response.text()).toBe("decoded");
  });

  it("rejects with the signal's reason on abort, before and after the headers arrived", async () => {
    await using server = await listen((req, res) => {
      if (req.headers["x-headers"])
        res.writeHead(200, { "content-type": "text/event-stream" }).write(":\n\n");
    });
    const before = new AbortController();
    const pending = keepAliveFetch()(server.url, { ...manual, signal: before.signal });
    before.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");

    const after = new AbortController();
    const response = await keepAliveFetch()(server.url, {
      ...manual,
      headers: { "x-headers": "1" },
      signal: after.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    after.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it("reports a refused connection as fetch does, and leaves other requests to the fallback", async () => {
    const closed = await listen(() => {});
    await closed.close();
    const failure = await keepAliveFetch()(closed.url, manual).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as { code?: string }).code).toBe("ECONNREFUSED");

    const seen: string[] = [];
    const fallback = async (url: string | URL) => {
      seen.push(String(url));
      return new Response("fallback");
    };
    const fetchFn = keepAliveFetch(fallback);
    await fetchFn("http://127.0.0.1:1/follow");
    await fetchFn("http://127.0.0.1:1/form", { ...manual, method: "POST", body: new URLSearchParams("a=1") });
    expect(seen).toEqual(["http://127.0.0.1:1/follow", "http://127.0.0.1:1/form"]);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** The real SDK transport over it, against server-everything over Streamable HTTP. */
describe("keepAliveFetch under the SDK's Streamable HTTP transport", () => {
  const entry = join(process.cwd(), "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
  let child: ChildProcess | undefined;
  let url = "";
  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, [entry, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    await until(() => stderr.includes("listening on port"), 15_000);
    url = `http://127.0.0.1:${port}/mcp`;
  });
  afterAll(() => {
    child?.kill("SIGKILL");
  });

  it("lists, calls, streams progress and closes the session", async () => {
    const client = new Client({ name: "t", version: "1" });
    // Settling on, as the bridge uses it: whole answers are settled, progress still streams.
    const fetchFn = keepAliveFetch(fetch, { settleBytes: 1024 * 1024 });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchFn }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const echoed = await client.callTool({ name: "echo", arguments: { message: "hi" } });
    expect(JSON.stringify(echoed.content)).toContain("hi");
    const progress: unknown[] = [];
    // Progress notifications reach the client on the call's SSE stream before its result does.
    const operation = await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (update) => progress.push(update), timeout: 30_000 },
    );
    expect(operation.isError).toBeFalsy();
    expect(progress.length).toBe(3);
    await client.close();
  });
});
