import { redactDeep as deepRedact, redactText, redactUrl } from "../util/redact.js";
import type { ResolvedConfig, ServerDefinition } from "./model.js";
import { secretsOf } from "./secrets.js";

const MASK = "***";

const maskValues = (record: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.keys(record).map((key) => [key, MASK]));

const redactDeep = <T>(value: T, secrets: readonly string[]): T =>
  deepRedact(value, (text) => redactText(text, secrets));

/**
 * A server definition safe to print: env and header values and OAuth secrets replaced by `***`, URL
 * credentials and secret query values masked, and every value from the environment or a secret field
 * masked wherever else it appears (command, args, cwd, URL path, ...).
 */
export function redactServer(definition: ServerDefinition): ServerDefinition {
  const secrets = secretsOf(definition);
  if (definition.transport === "stdio") {
    return redactDeep({ ...definition, env: maskValues(definition.env) }, secrets);
  }
  const oauth = definition.oauth;
  return redactDeep(
    {
      ...definition,
      url: redactUrl(redactText(definition.url, secrets)),
      headers: maskValues(definition.headers),
      ...(oauth
        ? {
            oauth: {
              ...oauth,
              ...(oauth.clientSecret ? { clientSecret: MASK } : {}),
              ...(oauth.privateKeyPem ? { privateKeyPem: MASK } : {}),
              ...(oauth.assertion ? { assertion: MASK } : {}),
              ...(oauth.idp
                ? {
                    idp: {
                      ...oauth.idp,
                      idToken: MASK,
                      ...(oauth.idp.clientSecret ? { clientSecret: MASK } : {}),
                    },
                  }
                : {}),
            },
          }
        : {}),
    },
    secrets,
  );
}

export function redactConfig(config: ResolvedConfig): ResolvedConfig {
  const secrets = [...new Set(config.servers.flatMap(secretsOf))].sort((a, b) => b.length - a.length);
  return {
    ...config,
    servers: config.servers.map(redactServer),
    warnings: config.warnings.map((warning) => ({
      ...warning,
      message: redactText(warning.message, secrets),
    })),
  };
}
