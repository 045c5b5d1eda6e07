import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { carriesSecret, urlCarriesSecret } from "../util/redact.js";
import { SERVING_ENV } from "../util/serving-marker.js";

/**
 * The environment of a stdio server. A server is a program other people wrote: it gets what it needs
 * to run (a small base), what its entry gives it, and never the host's credentials by accident. A host
 * variable whose name or value looks like a secret is withheld even under `inheritEnv: true`; the
 * entry passes one on purpose by naming it (`inheritEnv: ["GITHUB_TOKEN"]`) or in its `env`
 * (`"${GITHUB_TOKEN}"`).
 */

/** Name fragments (upper case) that make a host variable look like a secret. Documented in docs/security.md. */
export const SECRET_NAME_PARTS: readonly string[] = [
  "TOKEN",
  "SECRET",
  "KEY",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "AUTH",
  "PRIVATE",
  "COOKIE",
  "SESSIONID",
  "SESSION_ID",
  "CONNECTION_STRING",
  "DATABASE_URL",
  "JWT",
  "WEBHOOK",
];

/** Name endings (upper case) that make a host variable look like a secret (`GH_PAT`, `DB_PASS`, `SENTRY_DSN`, `STRIPE_SK`). */
export const SECRET_NAME_ENDINGS: readonly string[] = ["_PAT", "_PASS", "_PWD", "_DSN", "_SK"];

/** Whether a variable's name looks like it holds a secret (case-insensitive). */
export function looksSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return (
    SECRET_NAME_PARTS.some((part) => upper.includes(part)) ||
    SECRET_NAME_ENDINGS.some((ending) => upper.endsWith(ending))
  );
}

/** Names whose values are URLs or connection strings (`REDIS_URL`, `MONGODB_URI`, `SENTRY_DSN`, `HTTPS_PROXY`). */
const URL_NAME = /(?:^|_)(?:URLS?|URIS?|DSN|PROXY)$/i;

/**
 * Whether a host variable holds a secret, by its name or by its value: a URL with credentials, a
 * well-known token shape (the detector log redaction uses), or, for a URL-named variable, any
 * user-info or secret-named query parameter. Only values are inspected here, never logged.
 */
export function looksSecretVariable(name: string, value: string): boolean {
  if (looksSecretName(name) || carriesSecret(value)) return true;
  return URL_NAME.test(name) && urlCarriesSecret(value);
}

export interface ChildEnvironment {
  /** The complete environment of the child. */
  readonly env: Record<string, string>;
  /** Names of host variables that look secret and were not passed (never their values). */
  readonly withheld: readonly string[];
}

/**
 * The environment a stdio server gets: the SDK's safe base (PATH, HOME, USER, LOGNAME, SHELL, TERM;
 * on Windows its system folders), the host variables the entry opts into (`inheritEnv`: a list of
 * names, or `true` for every host variable that does not look secret), then the entry's `env`.
 */
export function childEnvironment(
  configured: Readonly<Record<string, string>>,
  inherit: boolean | readonly string[],
  hostEnv: Readonly<Record<string, string | undefined>> = process.env,
): ChildEnvironment {
  const env: Record<string, string> = getDefaultEnvironment();
  if (inherit === true) {
    for (const [name, value] of Object.entries(hostEnv)) {
      if (value !== undefined && !looksSecretVariable(name, value)) env[name] = value;
    }
  } else if (Array.isArray(inherit)) {
    // A name listed is passed on purpose, secret-looking or not.
    for (const name of inherit) {
      const value = hostEnv[name];
      if (value !== undefined) env[name] = value;
    }
  }
  // Always passed: a server that turns out to be the bridge itself must find it (util/serving-marker.ts).
  const serving = hostEnv[SERVING_ENV];
  if (serving !== undefined) env[SERVING_ENV] = serving;
  Object.assign(env, configured);
  const withheld = Object.keys(hostEnv)
    .filter((name) => {
      const value = hostEnv[name];
      return value !== undefined && !(name in env) && looksSecretVariable(name, value);
    })
    .sort();
  return { env, withheld };
}
