import type { JsonSchema, ToolDefinition } from "../../../../registry/tool-definition.js";
import { definedOnly } from "../../../../util/defined.js";

/** What an OpenAPI document of the gateway's REST face describes. */
export interface OpenApiInput {
  /** The tools the caller may see, in the bridge's order. */
  readonly tools: readonly ToolDefinition[];
  /** The gateway's origin, e.g. `http://127.0.0.1:8080` (the document's `servers` entry). */
  readonly origin: string;
  readonly version: string;
  /** Whether callers must present a bearer token (static tokens or OAuth). */
  readonly secured: boolean;
  /** Set for a per-server document (`/servers/{server}/openapi.json`). */
  readonly server?: string | undefined;
}

const JSON_TYPE = "application/json";

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", description: "The McpBridgeError code, e.g. TOOL_NOT_FOUND." },
        message: { type: "string" },
      },
    },
  },
} as const;

const ERROR_RESPONSES = {
  "400": "The body is not one JSON object of arguments.",
  "401": "No valid bearer token.",
  "404": "No such tool (or not one this caller may use).",
  "413": "The body is larger than the gateway accepts.",
  "422": "The arguments do not match the tool's input schema.",
  "429": "Refused by the caller's limits (calls at once, calls per minute).",
  "502": "The upstream server failed or is unavailable.",
  "504": "The call did not finish within its timeout.",
} as const;

/** A refused call says when to retry (rest-calls.ts). */
const RETRY_AFTER_HEADER = {
  "Retry-After": {
    description: "Whole seconds after which the call may be admitted.",
    schema: { type: "integer", minimum: 1 },
  },
} as const;

/**
 * An OpenAPI 3.1 document with one `POST /tools/{name}` operation per tool, built from the current tool
 * list (so it follows every tools/list_changed). Input and output schemas are copied under
 * `components.schemas` with their local `$ref`s rebased there: a tool's `#/$defs/X` would otherwise
 * point into the OpenAPI document itself.
 */
export function openApiDocument(input: OpenApiInput): Record<string, unknown> {
  const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };
  const paths: Record<string, unknown> = {};
  for (const tool of input.tools) {
    const inputKey = `${tool.name}.input`;
    schemas[inputKey] = rebased(tool.inputSchema, inputKey);
    let structured: unknown = {
      type: "object",
      description: "The tool's structured result, if it sent one.",
    };
    if (tool.outputSchema !== undefined) {
      const outputKey = `${tool.name}.output`;
      schemas[outputKey] = rebased(tool.outputSchema, outputKey);
      structured = { $ref: `#/components/schemas/${outputKey}` };
    }
    paths[`/tools/${tool.name}`] = { post: operation(tool, inputKey, structured, input.secured) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: input.server === undefined ? "mcp-bridge gateway" : `mcp-bridge gateway: ${input.server}`,
      version: input.version,
      description:
        "The tools of the MCP servers behind this mcp-bridge gateway, callable over plain HTTP: POST the arguments as a JSON object.",
    },
    servers: [{ url: input.origin }],
    paths,
    components: {
      schemas,
      securitySchemes: input.secured ? { bearer: { type: "http", scheme: "bearer" } } : {},
    },
    security: input.secured ? [{ bearer: [] }] : [],
  };
}

function operation(tool: ToolDefinition, inputKey: string, structured: unknown, secured: boolean) {
  const errors: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    if (status === "401" && !secured) continue;
    errors[status] = definedOnly({
      description,
      headers: status === "429" ? RETRY_AFTER_HEADER : undefined,
      content: { [JSON_TYPE]: { schema: { $ref: "#/components/schemas/Error" } } },
    });
  }
  return {
    operationId: tool.name,
    summary: tool.title ?? firstLine(tool.description) ?? tool.name,
    description: tool.description,
    tags: [tool.server],
    requestBody: {
      required: true,
      content: { [JSON_TYPE]: { schema: { $ref: `#/components/schemas/${inputKey}` } } },
    },
    responses: {
      "200": {
        description:
          "The tool's result: `text` as an LLM should read it, `content` and `structuredContent` as the server sent them. `isError` true when the tool reported a failure.",
        content: {
          [JSON_TYPE]: {
            schema: {
              type: "object",
              required: ["text", "isError", "content"],
              properties: {
                text: { type: "string" },
                isError: { type: "boolean" },
                content: { type: "array", items: { type: "object" } },
                structuredContent: structured,
              },
            },
          },
        },
      },
      ...errors,
    },
  };
}

function firstLine(text: string): string | undefined {
  const line = text.split("\n", 1)[0]?.trim();
  if (!line) return undefined;
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** A copy of `schema` whose document-local `$ref`s (`#`, `#/...`) point at its place in the OpenAPI document. */
function rebased(schema: JsonSchema, key: string): unknown {
  const base = `#/components/schemas/${key}`;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return value;
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      copy[name] =
        name === "$ref" && typeof item === "string" && (item === "#" || item.startsWith("#/"))
          ? base + item.slice(1)
          : walk(item);
    }
    return copy;
  };
  return walk(schema);
}
