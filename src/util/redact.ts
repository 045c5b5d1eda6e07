const MASK = "***";

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
