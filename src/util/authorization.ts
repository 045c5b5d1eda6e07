/**
 * The credential an `Authorization` header carries under one of `schemes` (case-insensitive), or
 * undefined. The one parser of that header: the gateway reads a caller's bearer token with it, the
 * auth layer the access token its own requests present. Only `SCHEME TOKEN` (spaces around allowed)
 * is a credential; anything after the token makes it none, so a malformed header is never half-read.
 */
export function authorizationCredential(
  header: string | readonly string[] | null | undefined,
  schemes: readonly string[] = ["Bearer"],
): string | undefined {
  const value = typeof header === "string" ? header : header?.[0];
  const match = value ? /^\s*(\S+)\s+(\S+)\s*$/.exec(value) : null;
  if (!match?.[1] || !match[2]) return undefined;
  const scheme = match[1].toLowerCase();
  return schemes.some((s) => s.toLowerCase() === scheme) ? match[2] : undefined;
}
