import * as z from "zod";
import {
  type FieldSpec,
  READERS,
  SERVER_FIELDS,
  SETTINGS_FIELDS,
  SETTINGS_STRUCTURED,
  STRUCTURED,
} from "./fields.js";

/**
 * The raw shapes of a config file, for editors and `mcp-bridge config schema`, generated from the
 * field tables of fields.ts (the same tables the loader reads with). Validation itself is done entry
 * by entry in normalize.ts, so one bad entry is skipped, not the whole file.
 */
function shapeOf(fields: Record<string, FieldSpec>): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const spec of Object.values(fields)) {
    const schema = () => READERS[spec.kind].schema();
    shape[spec.name] = schema()
      .optional()
      .describe(`${spec.doc}${spec.default ? ` (default: ${spec.default})` : ""}`);
    for (const alias of spec.aliases) shape[alias] = schema().optional().describe(`Same as ${spec.name}`);
  }
  return shape;
}

function structuredShape(
  table: Record<string, { keys: readonly string[]; schema: () => z.ZodType; doc: string }> = STRUCTURED,
): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const entry of Object.values(table)) {
    for (const key of entry.keys) shape[key] = entry.schema().optional().describe(entry.doc);
  }
  return shape;
}

export const rawServerSchema = z
  .object({ ...structuredShape(), ...shapeOf(SERVER_FIELDS) })
  .describe("One MCP server");

export const settingsSchema = z.object({
  ...shapeOf(SETTINGS_FIELDS),
  ...structuredShape(SETTINGS_STRUCTURED),
});

export const configFileSchema = z
  .object({
    $schema: z.string().optional(),
    mcpServers: z
      .record(z.string(), rawServerSchema)
      .optional()
      .describe("Claude Desktop / Cursor / .mcp.json shape"),
    servers: z.record(z.string(), rawServerSchema).optional().describe("VS Code shape"),
    inputs: z
      .array(
        z.object({
          id: z.string(),
          type: z.string().optional(),
          description: z.string().optional(),
          password: z.boolean().optional(),
        }),
      )
      .optional()
      .describe("VS Code: values asked for on the terminal for ${input:id}"),
    settings: settingsSchema.optional(),
  })
  .describe(
    "mcp-bridge configuration (JSON); TOML files use the same keys under [mcp.servers], [[mcp.servers]] or [mcp_servers], settings under [mcp]",
  );

export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(configFileSchema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}
