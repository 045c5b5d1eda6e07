import { redactDeep as deepRedact, isSecretName, redactText, redactUrl } from "../util/redact.js";
import type { ResolvedConfig, ServerDefinition } from "./model.js";
import { isPublicHeader, secretsOf } from "./secrets.js";

const MASK = "***";

/** The values of a record masked where `secret(name)` says so; the others are masked by `redactDeep` only if they hold a secret. */
const maskValues = (record: Readonly<Record<string, string>>, secret: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, secret(key) ? MASK : value]));

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
    // An env value under a plain name (COUNT=100000) stays readable, as documented; a secret-named one
    // is masked whatever its length, and a value from the environment is masked by its value.
    return redactDeep({ ...definition, env: maskValues(definition.env, isSecretName) }, secrets);
  }
  if (definition.transport === "in-process") return definition;
  const oauth = definition.oauth;
  return redactDeep(
    {
      ...definition,
      url: redactUrl(redactText(definition.url, secrets)),
      headers: maskValues(definition.headers, (name) => !isPublicHeader(name)),
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
