import { isSecretName } from "../util/redact.js";
import type { ServerDefinition } from "./model.js";

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
    if (oauth?.idp?.idToken) secrets.push(oauth.idp.idToken);
    if (oauth?.assertion) secrets.push(oauth.assertion);
    if (oauth?.idp?.clientSecret) secrets.push(oauth.idp.clientSecret);
  }
  return [...new Set(secrets.filter((secret) => secret.trim().length >= 4))].sort(
    (a, b) => b.length - a.length,
  );
}
