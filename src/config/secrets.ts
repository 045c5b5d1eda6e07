import { isSecretName } from "../util/redact.js";
import { type ServerDefinition, VALUES_FROM_ENV } from "./model.js";

/**
 * Which values of a definition are masked wherever they appear in output (errors, logs, stderr tails,
 * `config show`). Two sources:
 * - secret-bearing fields: env values whose NAME looks secret (API_TOKEN, ...), header values (but for
 *   standard headers that carry none, like Accept or User-Agent) and the token of an `Authorization` scheme, URL credentials, secret-named query values, OAuth secrets;
 * - values that came from the environment through `${VAR}` (or `env_http_headers`,
 *   `bearer_token_env_var`), whatever field they landed in: URL path, query, args, command, cwd.
 * Ordinary values are left alone so output stays readable: an env value under a plain name
 * (`COUNT=100000`) is not a secret, a value from a plain variable shorter than 8 characters ("info",
 * "8080") is a word or number rather than a credential, and variables whose values are public on the
 * machine (HOME, USER, TMPDIR, ...) would otherwise mask every path in an error.
 */

/** Shortest masked value from a secret-bearing field or a secret-named variable. */
const MIN_SECRET = 4;
/** Shortest masked value from an ordinary variable. */
const MIN_ENV_VALUE = 8;
/** Flags and small numbers: never credentials, and masking them would mangle ordinary output. */
const ORDINARY = /^(true|false|yes|no|on|off|null|none|\d{1,7})$/i;
/** Standard headers that never carry credentials; their values ("application/json") are everywhere. */
const PUBLIC_HEADERS =
  /^(accept(-[a-z]+)?|content-(type|language|encoding)|user-agent|cache-control|pragma|mcp-protocol-version|x-request-id)$/i;
const PUBLIC_VARIABLES =
  /^(HOME|USER|USERNAME|LOGNAME|PWD|OLDPWD|SHELL|PATH|TMPDIR|TEMP|TMP|LANG|LC_[A-Z]+|TERM|USERPROFILE|APPDATA|LOCALAPPDATA|XDG_[A-Z_]+)$/i;

/** A standard header that never carries a credential (Accept, Content-Type, User-Agent, ...). */
export function isPublicHeader(name: string): boolean {
  return PUBLIC_HEADERS.test(name);
}

/** Every value of a server to mask in output, longest first (so a longer secret is masked whole). */
export function secretsOf(definition: ServerDefinition): string[] {
  const secrets: string[] = [];
  const add = (value: string | undefined, min: number) => {
    const trimmed = value?.trim() ?? "";
    if (!value || trimmed.length < min || ORDINARY.test(trimmed)) return;
    secrets.push(value);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) secrets.push(encoded);
  };
  for (const { variable, value } of definition[VALUES_FROM_ENV] ?? []) {
    if (PUBLIC_VARIABLES.test(variable)) continue;
    // A `${keyring:…}` or `${input:…}` value was stored or typed as a secret: masked like a secret-named one.
    const stored = variable.startsWith("keyring:") || variable.startsWith("input:");
    add(value, stored || isSecretName(variable) ? MIN_SECRET : MIN_ENV_VALUE);
  }
  if (definition.transport === "stdio") {
    for (const [name, value] of Object.entries(definition.env))
      if (isSecretName(name)) add(value, MIN_SECRET);
  } else if (definition.transport !== "in-process") {
    for (const [name, value] of Object.entries(definition.headers)) {
      if (PUBLIC_HEADERS.test(name)) continue;
      add(value, MIN_SECRET);
      add(/^\s*(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1], MIN_SECRET);
    }
    try {
      const url = new URL(definition.url);
      if (url.password) {
        add(decodeURIComponent(url.password), MIN_SECRET);
        add(url.password, MIN_SECRET);
        add(decodeURIComponent(url.username), MIN_SECRET);
      }
      for (const [key, value] of url.searchParams) if (isSecretName(key)) add(value, MIN_SECRET);
    } catch {
      // not a URL: nothing to extract
    }
    const oauth = definition.oauth;
    add(oauth?.clientSecret, MIN_SECRET);
    add(oauth?.privateKeyPem, MIN_SECRET);
    add(oauth?.idp?.idToken, MIN_SECRET);
    add(oauth?.assertion, MIN_SECRET);
    add(oauth?.idp?.clientSecret, MIN_SECRET);
  }
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}
