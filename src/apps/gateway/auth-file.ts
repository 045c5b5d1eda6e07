import { readFile } from "node:fs/promises";
import * as z from "zod";
import { ConfigError, ErrorCode } from "../../errors/index.js";
import { errorText } from "../../util/text-of.js";
import type { GatewayOAuth } from "./oauth.js";
import type { GatewayToken } from "./tokens.js";

const profileSchema = z.strictObject({
  servers: z.array(z.string()).optional(),
  tools: z.array(z.string()).optional(),
  admin: z.boolean().optional(),
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
 * "client": "name", "profile": { "servers": [...], "tools": [...] } }] }`.
 */
export async function readAuthFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ tokens: GatewayToken[]; oauth?: GatewayOAuth }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ConfigError(
      ErrorCode.ConfigInvalid,
      `Cannot read the gateway auth file ${file}: ${errorText(error)}`,
      { file },
    );
  }
  const parsed = authFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      ErrorCode.ConfigInvalid,
      `The gateway auth file ${file} is invalid: ${z.prettifyError(parsed.error)}`,
      { file },
    );
  }
  // A name says who a caller is in logs and metrics: two tokens under one name could not be told apart.
  const names = parsed.data.tokens.flatMap((entry) => (entry.client === undefined ? [] : [entry.client]));
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) {
    throw new ConfigError(
      ErrorCode.ConfigInvalid,
      `The gateway auth file ${file} names two tokens "${repeated}": give each token its own client name.`,
      { file },
    );
  }
  const tokens = parsed.data.tokens.map((entry, i) => {
    const token = entry.token ?? (entry.tokenEnv ? env[entry.tokenEnv] : undefined);
    if (!token) {
      throw new ConfigError(
        ErrorCode.ConfigInvalid,
        `Token ${i + 1} of ${file} has no value: give "token", or "tokenEnv" naming a set environment variable.`,
        { file },
      );
    }
    return {
      token,
      ...(entry.client === undefined ? {} : { client: entry.client }),
      ...(entry.profile === undefined ? {} : { profile: entry.profile }),
    };
  });
  const oauth = parsed.data.oauth;
  return {
    tokens,
    ...(oauth
      ? {
          oauth: {
            issuer: oauth.issuer,
            jwksUrl: oauth.jwksUrl,
            ...(oauth.audience === undefined ? {} : { audience: oauth.audience }),
            ...(oauth.profiles === undefined ? {} : { profiles: oauth.profiles }),
            ...(oauth.defaultProfile === undefined ? {} : { defaultProfile: oauth.defaultProfile }),
          },
        }
      : {}),
  };
}

/** Tokens from an environment variable: comma-separated, each plain or `sha256:HEX`, every profile open. */
export function tokensFromEnv(value: string | undefined): GatewayToken[] {
  return (value ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .map((token) => ({ token }));
}
