#!/usr/bin/env node
// A small calculator MCP server over stdio: add, subtract, multiply, divide and greet.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const server = new McpServer({ name: "calculator", version: "1.0.0" });
const pair = z.object({ a: z.number().describe("First number"), b: z.number().describe("Second number") });
const text = (value: string | number) => ({ content: [{ type: "text" as const, text: String(value) }] });

server.registerTool("add", { description: "Add two numbers", inputSchema: pair }, async ({ a, b }) =>
  text(a + b),
);
server.registerTool("subtract", { description: "Subtract b from a", inputSchema: pair }, async ({ a, b }) =>
  text(a - b),
);
server.registerTool(
  "multiply",
  { description: "Multiply two numbers", inputSchema: pair },
  async ({ a, b }) => text(a * b),
);
server.registerTool("divide", { description: "Divide a by b", inputSchema: pair }, async ({ a, b }) =>
  b === 0
    ? { content: [{ type: "text" as const, text: "Cannot divide by zero: b must not be 0." }], isError: true }
    : text(a / b),
);
server.registerTool(
  "greet",
  {
    description: "Greet someone by name",
    inputSchema: z.object({ name: z.string().describe("Who to greet") }),
  },
  async ({ name }) => text(`Hello, ${name}!`),
);

await server.connect(new StdioServerTransport());
