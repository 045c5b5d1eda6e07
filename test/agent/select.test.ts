import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { chooseProvider, providerFromEnvironment } from "../../src/apps/agent/select-provider.js";

/** A local OpenAI-compatible server that lists the given models at /v1/models. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function localServer(models: string[]): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url !== "/v1/models") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model" })) }));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe("choosing the model", () => {
  it("without any key, the message names OpenAI, Anthropic and a local server with --base-url", () => {
    let message = "";
    try {
      providerFromEnvironment({}, {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/OPENAI_API_KEY/);
    expect(message).toMatch(/ANTHROPIC_API_KEY/);
    expect(message).toMatch(/--base-url http:\/\/127\.0\.0\.1/);
    expect(message).toMatch(/local server/);
  });

  it("a local endpoint that serves one model needs no model name", async () => {
    const baseUrl = await localServer(["qwen2.5:7b"]);
    const provider = await chooseProvider({ baseUrl }, {});
    expect(provider).toMatchObject({ name: "openai", model: "qwen2.5:7b" });
  });

  it("several models: the USAGE error names them; an unreachable endpoint says it could not list them", async () => {
    const baseUrl = await localServer(["a", "b\u001b[31m"]);
    await expect(chooseProvider({}, { OPENAI_BASE_URL: baseUrl })).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/--model: http:\/\/127\.0\.0\.1:\d+ serves a, b\[31m\.$/),
    });
    await expect(chooseProvider({ baseUrl: "http://127.0.0.1:1/v1" }, {})).rejects.toMatchObject({
      code: "USAGE",
      message: expect.stringMatching(/could not be listed/),
    });
  });

  it("a model named, or api.openai.com, is not asked for its models", async () => {
    const baseUrl = await localServer(["x"]);
    expect((await chooseProvider({ baseUrl, model: "y" }, {})).model).toBe("y");
    await expect(chooseProvider({}, { OPENAI_API_KEY: "k" })).rejects.toThrow(/--model or OPENAI_MODEL/);
  });
});
