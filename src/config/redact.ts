import { redactText, redactUrl } from "../util/redact.js";
import type { ResolvedConfig, ServerDefinition } from "./model.js";
import { secretsOf } from "./secrets.js";

const MASK = "***";

const maskValues = (record: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.keys(record).map((key) => [key, MASK]));

/** A server definition safe to print: env and header values, URL secrets and OAuth secrets masked. */
export function redactServer(definition: ServerDefinition): ServerDefinition {
  const secrets = secretsOf(definition);
  if (definition.transport === "stdio") {
    return {
      ...definition,
      command: redactText(definition.command, secrets),
      args: definition.args.map((arg) => redactText(arg, secrets)),
      env: maskValues(definition.env),
    };
  }
  const oauth = definition.oauth;
  return {
    ...definition,
    url: redactUrl(definition.url),
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
  };
}

export function redactConfig(config: ResolvedConfig): ResolvedConfig {
  const secrets = config.servers.flatMap(secretsOf);
  return {
    ...config,
    servers: config.servers.map(redactServer),
    warnings: config.warnings.map((warning) => ({
      ...warning,
      message: redactText(warning.message, secrets),
    })),
  };
}
