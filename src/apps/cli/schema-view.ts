/**
 * How a parameter's JSON Schema reads in one short label: `string`, `boolean|string` (type arrays and
 * unions are never narrowed to one type), `"a"|"b"` for enums, `string[]`, `object`. Pure; bounded
 * depth so a hostile schema cannot make it recurse without end.
 */
export function typeLabel(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== "object" || depth > 4) return "any";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum))
    return s.enum
      .slice(0, 8)
      .map((v) => JSON.stringify(v))
      .join("|")
      .concat(s.enum.length > 8 ? "|…" : "");
  if ("const" in s) return JSON.stringify(s.const);
  const union = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined) as
    | unknown[]
    | undefined;
  if (union) return [...new Set(union.slice(0, 8).map((branch) => typeLabel(branch, depth + 1)))].join("|");
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : s.type === undefined ? [] : [s.type];
  if (types.length === 0) return s.properties ? "object" : s.$ref ? "ref" : "any";
  return types
    .map((type) => (type === "array" ? `${typeLabel(s.items, depth + 1)}[]` : String(type)))
    .join("|");
}

export interface ParameterRow {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
}

/** The top-level parameters of an input schema, each with its full label. */
export function parameterRows(inputSchema: unknown): ParameterRow[] {
  if (!inputSchema || typeof inputSchema !== "object") return [];
  const { properties, required } = inputSchema as { properties?: unknown; required?: unknown };
  if (!properties || typeof properties !== "object") return [];
  const needed = new Set(Array.isArray(required) ? required : []);
  return Object.entries(properties as Record<string, unknown>).map(([name, schema]) => ({
    name,
    type: typeLabel(schema),
    required: needed.has(name),
    description:
      schema &&
      typeof schema === "object" &&
      typeof (schema as { description?: unknown }).description === "string"
        ? (schema as { description: string }).description
        : "",
  }));
}
