import type { FetchLike } from "@modelcontextprotocol/client";
import { authorizationCredential } from "../util/authorization.js";
import { withFileLock } from "../util/file-lock.js";
import type { AuthStore, StoredAuth } from "./store.js";

/**
 * Refreshes of one stored login, serialized across every process that uses it.
 *
 * Authorization servers rotate refresh tokens: each one is good for a single refresh. When several
 * processes (CLI calls, the daemon, a gateway) hold the same expired access token, each gets a 401
 * and the SDK refreshes in each; the first wins and the others present a refresh token that is
 * already spent, get `invalid_grant`, and would then log the user out. So the refresh request is
 * taken under a lock file beside the store, and the store is read again once the lock is held: a
 * token newer than the one the server refused was saved by another process meanwhile, and is handed
 * to the SDK as the token endpoint's answer instead of spending the refresh token again.
 *
 * This sits in the fetch the transport (and so the SDK's token requests) uses, since the SDK runs
 * discovery, refresh and saving itself and offers no hook between reading and refreshing tokens.
 */
export class RefreshCoordinator {
  /** Access tokens a resource server refused in this process: not worth handing out again. */
  readonly #refused = new Set<string>();

  constructor(
    private readonly store: AuthStore,
    private readonly lockTimeoutMs = 30_000,
  ) {}

  /** Wraps the transport's fetch: notes refused access tokens and coordinates refresh requests. */
  fetch(base: FetchLike): FetchLike {
    return async (url, init) => {
      const refreshToken = refreshTokenOf(init?.body);
      if (refreshToken !== undefined) return this.#refresh(base, url, init);
      const response = await base(url, init);
      if (response.status === 401) {
        const presented = presentedToken(init?.headers);
        if (presented !== undefined) this.#refused.add(presented);
      }
      return response;
    };
  }

  async #refresh(base: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<Response> {
    return withFileLock(
      `${this.store.file}.refresh`,
      async () => {
        const newer = this.#newerThanRefused(this.store.read());
        if (newer !== undefined) return tokenResponse(newer);
        const response = await base(url, init);
        // The whole answer is read while the lock is held, and good tokens are saved before it is
        // released, so the next process in line finds them instead of refreshing again.
        const text = await response.text();
        if (response.ok) this.#save(text);
        return new Response(text, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      },
      { timeoutMs: this.lockTimeoutMs },
    );
  }

  /**
   * Stored tokens that another process obtained after the ones this process presented were refused:
   * an access token this process has not seen refused, and not expired by its own `expires_in`.
   */
  #newerThanRefused({ tokens, savedAt }: StoredAuth): Record<string, unknown> | undefined {
    const access = tokens?.access_token;
    if (tokens === undefined || typeof access !== "string" || this.#refused.has(access)) return undefined;
    // A DPoP-bound token is tied to the key of the process that obtained it.
    if (typeof tokens.token_type === "string" && tokens.token_type.toLowerCase() === "dpop") return undefined;
    const lifetime = tokens.expires_in;
    const saved = savedAt === undefined ? Number.NaN : Date.parse(savedAt);
    if (typeof lifetime === "number" && saved + lifetime * 1000 <= Date.now()) return undefined;
    return tokens;
  }

  #save(text: string): void {
    let tokens: unknown;
    try {
      tokens = JSON.parse(text);
    } catch {
      return;
    }
    if (!isTokenAnswer(tokens)) return;
    this.store.update((current) => ({
      ...current,
      // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
      tokens: { refresh_token: (current.tokens as { refresh_token?: unknown })?.refresh_token, ...tokens },
    }));
  }
}

function isTokenAnswer(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { access_token?: unknown }).access_token === "string"
  );
}

/** The token endpoint's answer the SDK would have got, built from tokens saved by another process. */
function tokenResponse(stored: Record<string, unknown>): Response {
  const { issuer: _issuer, ...tokens } = stored;
  return new Response(JSON.stringify(tokens), {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

function refreshTokenOf(body: unknown): string | undefined {
  if (!(body instanceof URLSearchParams) || body.get("grant_type") !== "refresh_token") return undefined;
  return body.get("refresh_token") ?? undefined;
}

/**
 * What `new Headers()` takes, named through the `Headers` global Node's types declare: `HeadersInit`
 * exists only in the DOM lib, which a consumer's declarations check need not have.
 */
type HeaderValues = ConstructorParameters<typeof Headers>[0];

/** The access token a request presents (`Authorization: Bearer …` or `DPoP …`), if any. */
export function presentedToken(headers: HeaderValues): string | undefined {
  return authorizationCredential(new Headers(headers).get("authorization"), ["Bearer", "DPoP"]);
}
