import type { Raw } from "./fields.js";
import type { AdmitProjectServer } from "./model.js";

/** One VS Code `inputs` entry (`{ "type": "promptString", "id", "description", "password" }`). */
export interface InputRequest {
  readonly id: string;
  readonly description?: string;
  /** Ask without echoing what is typed. */
  readonly password: boolean;
  /** The config file that asks. */
  readonly file?: string;
}

/** Answers one input (undefined: not answered, the entries that use it are skipped). */
export type ResolveInput = (request: InputRequest) => Promise<string | undefined> | string | undefined;

const REFERENCE = /\$\{input:([^}]+)\}/g;

/**
 * Asks once for each `${input:id}` the document uses, in order of first use, and returns the answers.
 * Answers live only in the returned object (never written anywhere).
 */
export async function resolveInputs(
  data: Raw,
  resolve: ResolveInput | undefined,
  file?: string,
  admit?: AdmitProjectServer,
  /** The servers being started; undefined: all. An input only others use is not asked for. */
  only?: ReadonlySet<string>,
): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  if (!resolve) return answers;
  const ids = new Set<string>();
  if (admit || only) {
    for (const [name, entry] of serverEntries(data)) {
      if (only && !only.has(name)) continue;
      if (!admit || admit({ file: file ?? "", name, definition: entry })) collect(entry, ids);
    }
  } else collect(omitInputs(data), ids);
  if (ids.size === 0) return answers;
  const declared = Array.isArray(data.inputs) ? data.inputs : [];
  for (const id of ids) {
    const spec = declared.find((input): input is Raw => isRaw(input) && input.id === id);
    const answer = await resolve({
      id,
      ...(typeof spec?.description === "string" ? { description: spec.description } : {}),
      password: spec?.password === true,
      ...(file ? { file } : {}),
    });
    if (answer !== undefined) answers[id] = answer;
  }
  return answers;
}

/** The server entries of every section form (see document.ts), for asking only about admitted ones. */
function serverEntries(data: Raw): [string, unknown][] {
  const mcp = isRaw(data.mcp) ? data.mcp : {};
  const maps = [data.mcpServers, data.mcp_servers, data.servers, mcp.servers].filter(isRaw);
  const array = Array.isArray(mcp.servers) ? mcp.servers.filter(isRaw) : [];
  return [
    ...maps.flatMap((map) => Object.entries(map)),
    ...array.map((entry): [string, unknown] => {
      // As normalization sees it: the name is the key, not part of the definition.
      const { name, ...definition } = entry;
      return [String(name ?? ""), definition];
    }),
  ];
}

function omitInputs(data: Raw): Raw {
  const { inputs: _inputs, ...rest } = data;
  return rest;
}

function collect(value: unknown, ids: Set<string>, depth = 0): void {
  if (depth > 32) return;
  if (typeof value === "string") {
    for (const match of value.matchAll(REFERENCE)) ids.add(match[1] as string);
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, ids, depth + 1);
  } else if (isRaw(value)) {
    for (const item of Object.values(value)) collect(item, ids, depth + 1);
  }
}

function isRaw(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
