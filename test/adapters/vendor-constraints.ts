/**
 * Each vendor's published constraints on tool definitions, as checks: what the vendor's API would
 * reject. Used to run every real server's tool list through every export.
 */

/** OpenAI Chat Completions / Responses function tools: name `^[a-zA-Z0-9_-]{1,64}$`, object parameters. */
export function openAIProblems(tool: {
  type: string;
  function: { name: string; description: string; parameters: Record<string, unknown> };
}): string[] {
  const problems: string[] = [];
  if (tool.type !== "function") problems.push("type is not function");
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function.name)) problems.push(`bad name ${tool.function.name}`);
  if (tool.function.parameters.type !== "object") problems.push("parameters is not an object schema");
  return problems;
}

/** Anthropic Messages tools: name `^[a-zA-Z0-9_-]{1,64}$`, `input_schema` an object schema. */
export function anthropicProblems(tool: {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}): string[] {
  const problems: string[] = [];
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) problems.push(`bad name ${tool.name}`);
  if (tool.input_schema.type !== "object") problems.push("input_schema is not an object schema");
  return problems;
}

const GEMINI_TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"]);
const GEMINI_KEYS = new Set([
  "type",
  "description",
  "nullable",
  "enum",
  "format",
  "items",
  "properties",
  "required",
  "anyOf",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
]);

/**
 * Gemini function declarations: name starts with a letter or `_`, then `[A-Za-z0-9_.:-]`, at most
 * 64; `parameters` an OBJECT in the OpenAPI 3.0 subset (listed keys only, upper-case types, string
 * enums, no `$ref`).
 */
export function geminiProblems(declaration: {
  name: string;
  description: string;
  parameters?: unknown;
}): string[] {
  const problems: string[] = [];
  if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(declaration.name))
    problems.push(`bad name ${declaration.name}`);
  if (declaration.parameters !== undefined) {
    const parameters = declaration.parameters as Record<string, unknown>;
    if (parameters.type !== "OBJECT") problems.push("parameters is not OBJECT");
    walk(parameters, "parameters", problems);
  }
  return problems;
}

function walk(node: unknown, path: string, problems: string[]): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    problems.push(`${path} is not a schema object`);
    return;
  }
  const schema = node as Record<string, unknown>;
  for (const key of Object.keys(schema))
    if (!GEMINI_KEYS.has(key)) problems.push(`${path}.${key} not allowed`);
  if (schema.type !== undefined && !GEMINI_TYPES.has(schema.type as string))
    problems.push(`${path}.type ${String(schema.type)}`);
  if (
    schema.enum !== undefined &&
    !(Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string"))
  ) {
    problems.push(`${path}.enum not strings`);
  }
  if (schema.type === "ARRAY" && schema.items === undefined) problems.push(`${path}: ARRAY without items`);
  if (schema.items !== undefined) walk(schema.items, `${path}.items`, problems);
  if (schema.properties !== undefined) {
    for (const [name, value] of Object.entries(schema.properties as Record<string, unknown>)) {
      walk(value, `${path}.properties.${name}`, problems);
    }
  }
  if (Array.isArray(schema.anyOf)) {
    for (const [i, branch] of schema.anyOf.entries()) walk(branch, `${path}.anyOf[${i}]`, problems);
  }
  if (Array.isArray(schema.required)) {
    const names = Object.keys((schema.properties as Record<string, unknown>) ?? {});
    for (const r of schema.required)
      if (!names.includes(r as string)) problems.push(`${path}.required ${String(r)} missing`);
  }
}
