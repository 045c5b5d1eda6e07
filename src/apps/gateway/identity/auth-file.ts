import { readFile } from "node:fs/promises";
import * as z from "zod";
import {
  authFileInvalid,
  authFileNotJson,
  authFileRepeatedName,
  authFileTokenWithoutValue,
  authFileUnreadable,
} from "../../../errors/gateway-errors.js";
import { errorText } from "../../../util/text-of.js";
import type { GatewayOAuth } from "./jwt-auth.js";
import type { GatewayToken } from "./static-tokens.js";

const profileSchema = z.strictObject({
  servers: z.array(z.string()).optional(),
  tools: z.array(z.string()).optional(),
  admin: z.boolean().optional(),
  llmResults: z.boolean().optional(),
});
const authFileSchema = z.strictObject({
  oauth: z
    .strictObject({
      issuer: z.string().min(1),
      jwksUrl: z.url(),
      audience: z.string().optional(),
      profiles: z.record(z.string(), profileSchema).optional(),
      defaultProfile: profileSchema.optional(),
    })
    .optional(),
  tokens: z
    .array(
      z.strictObject({
        token: z.string().min(1).optional(),
        tokenEnv: z.string().min(1).optional(),
        client: z.string().optional(),
        profile: profileSchema.optional(),
      }),
    )
    .default([]),
});

/**
 * Reads the gateway's auth file: `{ "oauth": { "issuer", "jwksUrl", "audience", "profiles", "defaultProfile" },
 * "tokens": [{ "token": "sha256:HEX" | "...", "tokenEnv": "VAR",
 * "client": "name", "profile": { "servers": [...], "tools": [...], "admin": true, "llmResults": true } }] }`.
 */
export async function readAuthFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ tokens: GatewayToken[]; oauth?: GatewayOAuth }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw authFileUnreadable({ file, cause: error, detail: errorText(error) });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Never JSON.parse's own message: V8 quotes the text around the fault, which may be a token.
    throw authFileNotJson({ file });
  }
  const parsed = authFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw authFileInvalid({ file, detail: z.prettifyError(parsed.error) });
  }
  // A name says who a caller is in logs and metrics: two tokens under one name could not be told apart.
  const names = parsed.data.tokens.flatMap((entry) => (entry.client === undefined ? [] : [entry.client]));
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) {
    throw authFileRepeatedName({ file, name: repeated });
  }
  const tokens = parsed.data.tokens.map((entry, i) => {
    const token = entry.token ?? (entry.tokenEnv ? env[entry.tokenEnv] : undefined);
    if (!token) throw authFileTokenWithoutValue({ file, index: i });
    return { token, client: entry.client, profile: entry.profile };
  });
  return { tokens, oauth: parsed.data.oauth };
}

/** Tokens from an environment variable: comma-separated, each plain or `sha256:HEX`, every profile open. */
export function tokensFromEnv(value: string | undefined): GatewayToken[] {
  return (value ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .map((token) => ({ token }));
}
