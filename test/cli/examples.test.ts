import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { listen } from "../helpers/http-servers.js";

/** A scripted OpenAI-compatible endpoint: first asks for a tool call, then answers with what it got. */
async function fakeModel() {
  const requests: { messages: { role: string; content: string | null }[]; tools: unknown[] }[] = [];
  const server = await listen((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const request = JSON.parse(body);
      requests.push(request);
      const toolMessage = request.messages.find((m: { role: string }) => m.role === "tool");
      const message = toolMessage
        ? { role: "assistant", content: `The answer is ${toolMessage.content}.` }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "c1",
                type: "function",
                function: { name: "mcp_calculator_multiply", arguments: '{"a":12,"b":7}' },
              },
            ],
          };
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ choices: [{ message }] }));
    });
  }, "/v1");
  return { server, requests };
}

describe("examples/agent-loop", () => {
  it("runs the OpenAI tool-calling loop against an OpenAI-compatible endpoint", async () => {
    const { server, requests } = await fakeModel();
    await using _ = server;
    const output = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const child = spawn(process.execPath, [resolve("dist/examples/agent-loop.js"), "12 times 7?"], {
        env: {
          PATH: process.env.PATH ?? "",
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: "test-key",
          OPENAI_MODEL: "fake",
        },
      });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      child.on("close", (code) => done({ code, stdout }));
    });
    expect(output).toEqual({ code: 0, stdout: "The answer is 84.\n" });
    expect(requests).toHaveLength(2);
    const offered = (requests[0]?.tools ?? []) as { function: { name: string } }[];
    expect(offered.map((t) => t.function.name)).toContain("mcp_calculator_multiply");
  });

  it("says what to set and exits 0 when no endpoint is configured", async () => {
    const output = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [resolve("dist/examples/agent-loop.js")], {
        env: { PATH: process.env.PATH ?? "" },
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      child.on("close", (code) => done({ code, stderr }));
    });
    expect(output.code).toBe(0);
    expect(output.stderr).toContain("Set OPENAI_BASE_URL and OPENAI_API_KEY");
  });
});
