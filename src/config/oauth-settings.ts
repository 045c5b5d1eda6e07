import { entryProblem } from "../errors/entry-problems.js";
import { notBoolean } from "../errors/value-errors.js";
import { definedOnly } from "../util/defined.js";
import { lookup, type Raw } from "./fields.js";
import type { OAuthGrant, OAuthIdentityProvider, OAuthSettings } from "./model.js";
import { EntryProblem } from "./problem.js";

const GRANTS = ["authorization_code", "client_credentials", "cross_app_access", "jwt_bearer"] as const;

/** What each grant cannot work without: checked here, while loading, never when the server connects. */
const GRANT_NEEDS: Readonly<Record<OAuthGrant, readonly ("clientId" | "assertion" | "idp")[]>> = {
  authorization_code: [],
  client_credentials: ["clientId"],
  jwt_bearer: ["clientId", "assertion"],
  cross_app_access: ["clientId", "idp"],
};

/** Reads an entry's `oauth` table; `text` expands `${VAR}` like every other string of the entry. */
export function normalizeOAuth(
  value: unknown,
  text: (field: string, value: unknown) => string,
): OAuthSettings | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new EntryProblem("oauth", entryProblem.oauthNotTable());
  const raw = value as Raw;
  const get = (...keys: string[]) => lookup(raw, keys)?.value;
  const optional = (field: string, ...keys: string[]) => {
    const v = get(field, ...keys);
    return v === undefined ? undefined : text(`oauth.${field}`, v);
  };
  const scopes = get("scopes", "scope");
  const grant = get("grant", "grantType", "grant_type");
  if (grant !== undefined && !GRANTS.includes(grant as (typeof GRANTS)[number])) {
    throw new EntryProblem("oauth.grant", entryProblem.oauthGrant(GRANTS));
  }
  const idp = normalizeIdp(raw.idp, text);
  const port = get("redirectPort", "redirect_port");
  const perCaller = get("perCaller", "per_caller");
  if (perCaller !== undefined && typeof perCaller !== "boolean")
    throw new EntryProblem(
      "oauth.perCaller",
      entryProblem.valueRejected("oauth.perCaller", notBoolean().message),
    );
  const settings: Record<string, unknown> = {
    clientId: optional("clientId", "client_id"),
    clientSecret: optional("clientSecret", "client_secret"),
    clientMetadataUrl: optional("clientMetadataUrl", "client_metadata_url"),
    scopes:
      typeof scopes === "string"
        ? scopes.split(/\s+/).filter(Boolean)
        : Array.isArray(scopes)
          ? scopes.map(String)
          : undefined,
    grant,
    tokenEndpointAuthMethod: get("tokenEndpointAuthMethod", "token_endpoint_auth_method"),
    privateKeyPem: optional("privateKeyPem", "private_key_pem"),
    signingAlgorithm: optional("signingAlgorithm", "signing_algorithm"),
    redirectPort: typeof port === "number" ? port : undefined,
    perCaller: perCaller === true ? true : undefined,
    idp,
    assertion: optional("assertion"),
    issuer: optional("issuer"),
  };
  const missing = GRANT_NEEDS[(grant as OAuthGrant | undefined) ?? "authorization_code"].filter(
    (field) => !settings[field],
  );
  if (missing.length > 0) {
    throw new EntryProblem(`oauth.${missing[0]}`, entryProblem.oauthGrantNeeds(String(grant), missing));
  }
  return definedOnly(settings) as OAuthSettings;
}

/** Enterprise-managed authorization (SEP-990): the identity provider that issues the ID-JAG. */
function normalizeIdp(
  value: unknown,
  text: (field: string, value: unknown) => string,
): OAuthIdentityProvider | undefined {
  if (value === undefined) return undefined;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new EntryProblem("oauth.idp", entryProblem.idpNotTable());
  }
  const table = value as Raw;
  const field = (name: string, ...keys: string[]) => {
    const found = lookup(table, [name, ...keys])?.value;
    return found === undefined ? undefined : text(`oauth.idp.${name}`, found);
  };
  const entries = {
    tokenEndpoint: field("tokenEndpoint", "token_endpoint"),
    issuer: field("issuer"),
    idToken: field("idToken", "id_token"),
    clientId: field("clientId", "client_id"),
    clientSecret: field("clientSecret", "client_secret"),
  };
  if (!entries.idToken || !entries.clientId || !(entries.tokenEndpoint || entries.issuer)) {
    throw new EntryProblem("oauth.idp", entryProblem.idpIncomplete());
  }
  return definedOnly(entries) as OAuthIdentityProvider;
}
