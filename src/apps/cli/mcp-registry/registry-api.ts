import * as z from "zod";
import {
  registryAnswerInvalid,
  registryUnreachable,
  registryVersionMissing,
} from "../../../errors/registry-errors.js";
import { boundedFetch } from "../../../transport/bounded-fetch.js";

/**
 * A client of the MCP Registry API (the official registry's published OpenAPI, `/v0.1/servers`,
 * `/v0.1/servers/{serverName}/versions[/{version}]`; any sub-registry that implements it). Everything
 * a registry answers is hostile input: each answer is read within a size bound, then checked against
 * the parts of the schema an install uses; the rest of an entry is kept but never trusted.
 */

export const OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io";

/** A registry answer larger than this is cut off and refused (a page of 100 entries is ~1 MB). */
export const MAX_REGISTRY_ANSWER_BYTES = 4 * 1024 * 1024;
/** Pages read for one search at most: a registry whose cursors never end cannot keep us reading. */
const MAX_PAGES = 5;
const API = "v0.1";

const input = z
  .object({
    description: z.string().optional(),
    isRequired: z.boolean().optional(),
    isSecret: z.boolean().optional(),
    format: z.string().optional(),
    value: z.string().optional(),
    default: z.string().optional(),
    placeholder: z.string().optional(),
    choices: z.array(z.string()).optional(),
  })
  .loose();

const withVariables = input.extend({ variables: z.record(z.string(), input).optional() });

export const argumentSchema = z.union([
  withVariables.extend({
    type: z.literal("positional"),
    valueHint: z.string().optional(),
    isRepeated: z.boolean().optional(),
  }),
  withVariables.extend({
    type: z.literal("named"),
    name: z.string(),
    isRepeated: z.boolean().optional(),
  }),
]);
export type RegistryArgument = z.infer<typeof argumentSchema>;

export const keyValueSchema = withVariables.extend({ name: z.string() });
export type KeyValueInput = z.infer<typeof keyValueSchema>;

const transportSchema = z
  .object({
    type: z.string(),
    url: z.string().optional(),
    headers: z.array(keyValueSchema).optional(),
  })
  .loose();

const packageSchema = z
  .object({
    registryType: z.string(),
    registryBaseUrl: z.string().optional(),
    identifier: z.string(),
    version: z.string().optional(),
    fileSha256: z.string().optional(),
    runtimeHint: z.string().optional(),
    transport: transportSchema,
    runtimeArguments: z.array(argumentSchema).optional(),
    packageArguments: z.array(argumentSchema).optional(),
    environmentVariables: z.array(keyValueSchema).optional(),
  })
  .loose();
export type RegistryPackage = z.infer<typeof packageSchema>;

export const serverDetailSchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    title: z.string().optional(),
    version: z.string(),
    websiteUrl: z.string().optional(),
    repository: z.object({ url: z.string().optional(), source: z.string().optional() }).loose().optional(),
    packages: z.array(packageSchema).optional(),
    remotes: z.array(transportSchema).optional(),
  })
  .loose();
export type ServerDetail = z.infer<typeof serverDetailSchema>;

const officialMeta = z
  .object({
    status: z.string().optional(),
    publishedAt: z.string().optional(),
    isLatest: z.boolean().optional(),
  })
  .loose();

const serverResponseSchema = z.object({
  server: serverDetailSchema,
  _meta: z
    .object({ "io.modelcontextprotocol.registry/official": officialMeta.optional() })
    .loose()
    .optional(),
});
export type ServerResponse = z.infer<typeof serverResponseSchema>;

const serverListSchema = z.object({
  servers: z.array(serverResponseSchema),
  metadata: z.object({ nextCursor: z.string().nullish(), count: z.number().optional() }).loose().optional(),
});

/** One registry entry with the registry it came from. */
export interface FoundEntry {
  readonly registry: string;
  readonly entry: ServerResponse;
}

export interface RegistryClientOptions {
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}

function base(registry: string): string {
  return registry.replace(/\/+$/, "");
}

async function getJson(
  url: string,
  options: RegistryClientOptions,
): Promise<{ status: number; body: unknown }> {
  const bounded = boundedFetch((options.fetch ?? fetch) as never, {
    maxResponseBytes: MAX_REGISTRY_ANSWER_BYTES,
    tooLargeCode: -32000,
  });
  let response: Response;
  let text: string;
  try {
    response = await bounded(url, {
      headers: { accept: "application/json" },
      signal: options.signal ?? AbortSignal.timeout(30_000),
      redirect: "error",
    });
    text = await response.text();
  } catch (error) {
    throw registryUnreachable({ url, reason: (error as Error).message });
  }
  if (response.status === 404) return { status: 404, body: undefined };
  if (!response.ok) throw registryUnreachable({ url, reason: `HTTP ${response.status}` });
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw registryAnswerInvalid({ url, problem: "not JSON" });
  }
}

function parsed<T>(schema: z.ZodType<T>, body: unknown, url: string): T {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw registryAnswerInvalid({ url, problem: `${issue?.path.join(".") || "answer"}: ${issue?.message}` });
  }
  return result.data;
}

/** Servers whose name contains `query` (latest versions), across the registries in order, deduplicated. */
export async function searchRegistries(
  registries: readonly string[],
  query: string,
  limit: number,
  options: RegistryClientOptions = {},
): Promise<FoundEntry[]> {
  const found: FoundEntry[] = [];
  const seen = new Set<string>();
  for (const registry of registries) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
      const params = new URLSearchParams({
        search: query,
        version: "latest",
        limit: String(Math.min(limit, 100)),
      });
      if (cursor) params.set("cursor", cursor);
      const url = `${base(registry)}/${API}/servers?${params}`;
      const { body } = await getJson(url, options);
      const list = parsed(serverListSchema, body ?? { servers: [] }, url);
      for (const entry of list.servers) {
        if (seen.has(entry.server.name) || found.length >= limit) continue;
        seen.add(entry.server.name);
        found.push({ registry, entry });
      }
      cursor = list.metadata?.nextCursor ?? undefined;
      if (!cursor) break;
    }
  }
  return found;
}

/** The entry of `name` at `version` (the latest when undefined) from the first registry that has it. */
export async function fetchEntry(
  registries: readonly string[],
  name: string,
  version: string | undefined,
  options: RegistryClientOptions = {},
): Promise<FoundEntry> {
  for (const registry of registries) {
    const url = `${base(registry)}/${API}/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version ?? "latest")}`;
    const { status, body } = await getJson(url, options);
    if (status === 404) continue;
    const entry = parsed(serverResponseSchema, body, url);
    if (entry.server.name !== name)
      throw registryAnswerInvalid({ url, problem: `it answered for "${entry.server.name}" instead` });
    return { registry, entry };
  }
  throw registryVersionMissing({ name, version, registries });
}

/** Every published version of `name` in `registry`, newest first as the registry lists them. */
export async function listVersions(
  registry: string,
  name: string,
  options: RegistryClientOptions = {},
): Promise<ServerResponse[]> {
  const url = `${base(registry)}/${API}/servers/${encodeURIComponent(name)}/versions`;
  const { status, body } = await getJson(url, options);
  if (status === 404) return [];
  return parsed(serverListSchema, body, url).servers.filter((s) => s.server.name === name);
}
