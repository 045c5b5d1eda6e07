import type { Tool } from "@modelcontextprotocol/client";

export type JsonSchema = Record<string, unknown>;

/** A tool as the registry keeps it: pure data, no connection. */
export interface ToolDefinition {
  /** Exposed name: unique, `^[A-Za-z0-9_-]{1,64}$`. */
  readonly name: string;
  /** Original server name from the config. */
  readonly server: string;
  /** Original tool name from the server. */
  readonly tool: string;
  /** Description with the configured prefix. */
  readonly description: string;
  readonly title?: string;
  /** The server's `inputSchema`, untouched. */
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly annotations?: Tool["annotations"];
  /** The server's icons for the tool, kept for hosts that show them. */
  readonly icons?: Tool["icons"];
}

export type FlatParameterType = "string" | "number" | "integer" | "boolean" | "array" | "object";

export interface FlatParameter {
  /** The property's name; a nested object's field has a dotted name (`address.city`). */
  readonly name: string;
  /** For a nested object's field: the property names from the top (a name may itself contain a dot). */
  readonly path?: readonly string[];
  readonly type: FlatParameterType;
  readonly description?: string;
  readonly required: boolean;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
}

/** A flat parameter list; `complete: false` says the schema had parts a flat list cannot express. */
export interface FlatParameters {
  readonly parameters: readonly FlatParameter[];
  readonly complete: boolean;
  /** Why the flat view is incomplete (`anyOf`, `$ref`, arrays of objects, objects nested too deep, ...). */
  readonly omitted: readonly string[];
}

/** Host-level filter: return false to hide a tool. */
export type ToolFilterCallback = (tool: { server: string; tool: string; definition: Tool }) => boolean;

export interface LatencyStats {
  readonly calls: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly p50Ms?: number;
  readonly p95Ms?: number;
  readonly maxMs?: number;
}

export interface BridgeStats {
  readonly servers: Readonly<Record<string, LatencyStats>>;
  readonly tools: Readonly<Record<string, LatencyStats>>;
}
