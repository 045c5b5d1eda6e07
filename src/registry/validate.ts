import { Ajv } from "@modelcontextprotocol/client/validators/ajv";
import type { JsonSchema } from "./types.js";

export interface ArgumentIssue {
  readonly path: string;
  readonly message: string;
}

type Check = ((data: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string; params?: unknown }[] | null;
};

let ajv: InstanceType<typeof Ajv> | undefined;
const cache = new WeakMap<object, Check | { failed: string }>();

/**
 * Checks arguments against a tool's inputSchema before anything is sent, so the LLM gets a precise
 * list of bad fields without a round trip. Uses the AJV engine the SDK ships. A schema AJV cannot
 * compile is not held against the arguments (the server validates anyway).
 */
export function validateArguments(schema: JsonSchema, args: unknown): ArgumentIssue[] {
  let check = cache.get(schema);
  if (!check) {
    try {
      ajv ??= new Ajv({ allErrors: true, strict: false, validateSchema: false });
      const { $schema: _ignored, ...rest } = schema;
      check = ajv.compile(rest) as Check;
    } catch (error) {
      check = { failed: error instanceof Error ? error.message : String(error) };
    }
    cache.set(schema, check);
  }
  if (!(typeof check === "function")) return [];
  if (check(args)) return [];
  return (check.errors ?? []).map((error) => {
    const missing = (error.params as { missingProperty?: string } | undefined)?.missingProperty;
    const path = missing ? `${error.instancePath}/${missing}` : error.instancePath;
    return { path: path.replace(/^\//, "").replaceAll("/", "."), message: error.message ?? "is invalid" };
  });
}
