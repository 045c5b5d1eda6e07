import type { ServerDefinition } from "../config/model.js";

const MASK = "***";

/** Every secret value of a server (env values, header values, URL credentials, OAuth secrets). */
export function secretsOf(definition: ServerDefinition): string[] {
  const secrets: string[] = [];
  if (definition.transport === "stdio") {
    secrets.push(...Object.values(definition.env));
  } else {
    secrets.push(...Object.values(definition.headers));
    for (const value of Object.values(definition.headers)) {
      const token = /^\s*(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1];
      if (token) secrets.push(token);
    }
    try {
      const url = new URL(definition.url);
      if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
      if (url.username && url.password) secrets.push(decodeURIComponent(url.username));
      for (const [key, value] of url.searchParams) if (isSecretName(key)) secrets.push(value);
    } catch {
      // not a URL: nothing to extract
    }
    const oauth = definition.oauth;
    if (oauth?.clientSecret) secrets.push(oauth.clientSecret);
    if (oauth?.privateKeyPem) secrets.push(oauth.privateKeyPem);
  }
  return [...new Set(secrets.filter((secret) => secret.trim().length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
}

/** Names that hold secrets when they appear as env vars, headers or query parameters. */
export function isSecretName(name: string): boolean {
  return /(token|secret|passw|pwd|key|auth|credential|cookie|session|signature|sig$)/i.test(name);
}

/** Replaces every occurrence of each secret, `Bearer <token>` values and URL credentials with `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && result.includes(secret)) result = result.split(secret).join(MASK);
  }
  result = result.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${MASK}`);
  return result.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi, `$1$2:${MASK}@`);
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
