import type { Logger } from "./logger.js";

const MASK = "***";

/**
 * Shortest value masked. Shorter values ("on", "42", "dev") are words and numbers found in ordinary
 * text; masking them would turn every message into noise while protecting nothing a guess would not
 * find. A secret this short is not a secret.
 */
export const MIN_SECRET_CHARS = 4;

/** Names that hold secrets when they appear as env vars, headers or query parameters. */
export function isSecretName(name: string): boolean {
  return /(token|secret|passw|pwd|key|auth|credential|cookie|session|signature|sig$)/i.test(name);
}

/**
 * Replaces every occurrence of each secret, `Bearer <token>` values and URL credentials with `***`.
 * Secrets are matched as plain text (never made into a regular expression), longest first when the
 * caller sorts them so, so a secret that contains another is masked whole.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS && result.includes(secret))
      result = result.split(secret).join(MASK);
  }
  result = result.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${MASK}`);
  return result.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi, `$1$2:${MASK}@`);
}

/**
 * Every string inside plain objects and arrays redacted (keys too); symbol-keyed data is dropped.
 * Other objects (an Error, a Date) are passed on as they are.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value && typeof value === "object" && isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key), redactDeep(item, redact)]),
    ) as T;
  }
  return value;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A URL with its password and secret-looking query parameters masked. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = MASK;
    for (const key of [...parsed.searchParams.keys()]) {
      if (isSecretName(key)) parsed.searchParams.set(key, MASK);
    }
    return parsed.toString().replaceAll(encodeURIComponent(MASK), MASK);
  } catch {
    return redactText(url, []);
  }
}

/**
 * The secrets of one bridge, for every channel that carries text a server sent (its log messages,
 * stderr, error messages, span statuses): values are added as configs are loaded (and OAuth tokens as
 * they are used) and never removed, since a server of an older config may still be running and
 * printing its old secrets.
 */
export class SecretMask {
  #secrets: string[] = [];
  readonly #known = new Set<string>();

  /** Adds values to mask; values shorter than MIN_SECRET_CHARS are ignored. */
  add(values: Iterable<string>): void {
    let added = false;
    for (const value of values) {
      if (value.length < MIN_SECRET_CHARS || this.#known.has(value)) continue;
      this.#known.add(value);
      added = true;
    }
    // Longest first, so a secret containing another is masked whole.
    if (added) this.#secrets = [...this.#known].sort((a, b) => b.length - a.length);
  }

  /** The text with every secret, bearer token and URL password masked. */
  readonly text = (text: string): string => redactText(text, this.#secrets);

  /** Every string inside the value masked (for structured data such as a log message's `data`). */
  deep<T>(value: T): T {
    return redactDeep(value, this.text);
  }

  /** A logger whose messages and fields are masked before they reach `logger`. */
  logger(logger: Logger): Logger {
    const wrap =
      (level: keyof Logger) =>
      (message: string, fields?: Record<string, unknown>): void =>
        logger[level](this.text(message), fields === undefined ? undefined : this.deep(fields));
    return { debug: wrap("debug"), info: wrap("info"), warn: wrap("warn"), error: wrap("error") };
  }
}
