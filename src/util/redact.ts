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
 * The shapes of well-known credentials, recognised wherever they appear: JSON Web Tokens, GitHub,
 * GitLab, Slack, Stripe, AWS, OpenAI/Anthropic, Google (API keys, OAuth access tokens) and npm tokens,
 * Slack webhook URLs and PEM private keys. One list for every detector (log redaction here, the
 * environment a server inherits in transport/child-environment.ts, the guardrails on tool calls), so a
 * shape added is known to all.
 *
 * Every shape is linear in its input, which matters since tool results are hostile text: each starts
 * with a literal and a look-behind that lets a match begin only where a run of its characters begins
 * (`(?<!…)`, never `\b`, which also holds inside `a-b-c`), and each repeat is one character class
 * followed by a character outside it, so an attempt scans its runs once and never backtracks into them.
 */
const TOKEN_SHAPES: readonly string[] = [
  String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`,
  String.raw`(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`,
  String.raw`(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}`,
  String.raw`(?<![A-Za-z0-9_-])xox[abposr]-[A-Za-z0-9-]{10,}`,
  String.raw`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{16,}`,
  String.raw`(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`(?<![A-Za-z0-9_])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9_])`,
  String.raw`(?<![A-Za-z0-9_-])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}`,
  String.raw`(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}`,
  String.raw`(?<![A-Za-z0-9_-])ya29\.[A-Za-z0-9_-]{20,}`,
  String.raw`(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}`,
  "-----BEGIN [A-Z ]*PRIVATE KEY-----",
];
const TOKEN_SHAPE = new RegExp(TOKEN_SHAPES.join("|"), "g");
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/**
 * `scheme://user:password@` (the user may be empty: `redis://:password@host`). A match begins at `://`
 * (the scheme is kept as it is, so it need not be matched), which no repeat below can contain.
 */
const URL_PASSWORD = /:\/\/([^/\s:@]*):([^/\s@]+)@/g;
/** An AWS secret access key has no shape of its own: it is known by the name written before it. */
const AWS_SECRET = /(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi;
const KEY_BEGIN = /-----BEGIN [A-Z ]*PRIVATE KEY-----/g;
const KEY_END = /-----END [A-Z ]*PRIVATE KEY-----/y;

/**
 * Whether a text carries a credential by its shape alone: a URL with a password, an
 * `Authorization`-style `Bearer`/`Basic` value or a well-known token (see TOKEN_SHAPES).
 */
export function carriesSecret(text: string): boolean {
  try {
    if (text.includes("://") && testOnce(URL_PASSWORD, text)) return true;
    if (!mayHoldToken(text)) return false;
    return [BEARER, TOKEN_SHAPE, AWS_SECRET].some((pattern) => testOnce(pattern, text));
  } catch (error) {
    // Too unusual to check (see redactText): taken as carrying one.
    if (error instanceof RangeError) return true;
    throw error;
  }
}

/**
 * Whether a URL (a `*_URL`, `*_URI`, `*_DSN` or proxy setting) carries a credential: user-info of any
 * kind (`https://TOKEN@host` puts a token in the user name), a secret-named query parameter
 * (`?access_token=`), or a credential shape anywhere in it.
 */
export function urlCarriesSecret(value: string): boolean {
  if (carriesSecret(value)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/\s?#]*@/i.test(value.trim())) return true;
  try {
    const parsed = new URL(value.trim());
    return [...parsed.searchParams.keys()].some(isSecretName);
  } catch {
    return false;
  }
}

/**
 * Replaces every occurrence of each secret, `Bearer <token>` values, URL credentials and well-known
 * token shapes with `***`. Secrets are matched as plain text (never made into a regular expression),
 * longest first when the caller sorts them so, so a secret that contains another is masked whole.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  try {
    return redactShapes(text, secrets);
  } catch (error) {
    // A pattern's backtrack stack ran out (megabytes of one unbroken token-like run, which is hostile
    // rather than text): the whole text is withheld, since what it hides cannot be told.
    if (error instanceof RangeError) return UNCHECKABLE;
    throw error;
  }
}

/** What stands for a text too unusual to check for secrets (see redactText). */
export const UNCHECKABLE = "[text withheld: too unusual to check for secrets]";

function redactShapes(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS && result.includes(secret))
      result = result.split(secret).join(MASK);
  }
  if (mayHoldToken(result)) {
    result = maskPrivateKeys(result);
    result = result.replace(BEARER, `$1 ${MASK}`);
    result = result.replace(TOKEN_SHAPE, MASK);
    result = result.replace(AWS_SECRET, `$1${MASK}`);
  }
  return result.includes("://") ? result.replace(URL_PASSWORD, `://$1:${MASK}@`) : result;
}

function testOnce(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/** Characters of token runs: letters, digits and `_-/+=` (base64 and URL-safe base64). */
const TOKEN_CHAR = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-/+=")
  TOKEN_CHAR[char.charCodeAt(0)] = 1;
/** The shortest run a token shape needs, `Bearer`/`Basic` aside (`eyJ` and 8, `AKIA` and 16, ...). */
const TOKEN_RUN = 15;

/**
 * Whether a text may hold a token shape, a `Bearer`/`Basic` value or a PEM block, in one pass over its
 * characters: a run of TOKEN_CHAR at least TOKEN_RUN long (every token shape has one; `-----BEGIN`
 * is one too), or the word `Bearer` or `Basic`. Most prose has neither, and then none of the
 * patterns needs to run: the check on every tool result stays cheap.
 */
function mayHoldToken(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 128 && TOKEN_CHAR[code] === 1) {
      if (++run >= TOKEN_RUN) return true;
      continue;
    }
    if ((run === 5 || run === 6) && isAuthScheme(text, index - run, run)) return true;
    if (run >= 10 && text.startsWith("-----BEGIN", index - run)) return true;
    run = 0;
  }
  return false;
}

/** Whether the run at `start` is `Bearer` or `Basic` in any case (most runs fail on the first letter). */
function isAuthScheme(text: string, start: number, length: number): boolean {
  if ((text.charCodeAt(start) | 0x20) !== 0x62) return false;
  const lower = text.slice(start, start + length).toLowerCase();
  return lower === "bearer" || lower === "basic";
}

/**
 * A PEM private key masked whole, header to footer: the base64 body has no shape of its own. A block
 * with no footer is masked to the end of the text (a key cut short is still a key). Linear: one search
 * for the footer from each header, and the search goes on after it.
 */
function maskPrivateKeys(text: string): string {
  if (!text.includes("PRIVATE KEY-----")) return text;
  let out = "";
  let from = 0;
  KEY_BEGIN.lastIndex = 0;
  for (let begin = KEY_BEGIN.exec(text); begin; begin = KEY_BEGIN.exec(text)) {
    const end = text.indexOf("-----END ", KEY_BEGIN.lastIndex);
    out += `${text.slice(from, begin.index)}${MASK}`;
    if (end < 0) return out;
    KEY_END.lastIndex = end;
    from = KEY_END.test(text) ? KEY_END.lastIndex : end;
    KEY_BEGIN.lastIndex = from;
  }
  return out + text.slice(from);
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

  /** Whether `text` holds one of the secrets or a credential shape (what `text` would mask). */
  holds(text: string): boolean {
    for (const secret of this.#secrets) if (text.includes(secret)) return true;
    return carriesSecret(text);
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
