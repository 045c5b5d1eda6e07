import type { FetchLike } from "@modelcontextprotocol/client";
import { authorizationCredential } from "../util/authorization.js";
import { withFileLock } from "../util/file-lock.js";
import { type AuthStore, expiryOf, type StoredAuth, withTokens } from "./store.js";

/** How far ahead of its expiry an access token is refreshed when the config does not say. */
export const DEFAULT_REFRESH_MARGIN_MS = 60_000;

export interface RefreshOptions {
  /** Refresh an access token this long before it expires (at most half its lifetime); 0: only on a 401. */
  readonly marginMs?: number;
  /** Runs the SDK's own refresh (its `auth()`) with the given fetch; absent: no refresh ahead of expiry. */
  readonly refreshNow?: (fetch: FetchLike) => Promise<unknown>;
  readonly lockTimeoutMs?: number;
}

/**
 * Refreshes of one stored login, serialized across every process that uses it.
 *
 * Authorization servers rotate refresh tokens: each one is good for a single refresh, and a server
 * without a grace window treats a second use as theft and may revoke the whole family, logging the user
 * out everywhere. When several processes (CLI calls, the daemon, a gateway) hold the same expiring
 * tokens, each would refresh. So the refresh request is taken under a lock file beside the store, and
 * the store is read again once the lock is held: a usable token saved by another process meanwhile is
 * handed to the SDK as the token endpoint's answer instead of refreshing again, and when the refresh
 * token the SDK read was rotated since, the current one is sent in its place. The server never sees a
 * rotated refresh token twice.
 *
 * An access token close to its expiry is refreshed before a request presents it, so a busy server
 * rarely answers 401 and a rotation rarely happens under load.
 *
 * This sits in the fetch the transport (and so the SDK's token requests) uses, since the SDK runs
 * discovery, refresh and saving itself and offers no hook between reading and refreshing tokens.
 */
export class RefreshCoordinator {
  /** Access tokens this process will not take back: refused by the resource server, or being replaced. */
  readonly #retired = new Set<string>();
  readonly #marginMs: number;
  #ahead: Promise<void> | undefined;

  constructor(
    private readonly store: AuthStore,
    private readonly options: RefreshOptions = {},
  ) {
    this.#marginMs = options.marginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  }

  /** Wraps the transport's fetch: refreshes ahead of expiry, notes refused tokens, coordinates refreshes. */
  fetch(base: FetchLike): FetchLike {
    const wrapped: FetchLike = async (url, init) => {
      const refreshToken = refreshTokenOf(init?.body);
      if (refreshToken !== undefined) return this.#refresh(base, url, init, refreshToken);
      const fresher = await this.#refreshAhead(init?.headers, wrapped);
      const sent = fresher === undefined ? init : withBearer(init, fresher);
      const response = await base(url, sent);
      if (response.status === 401) {
        const presented = presentedToken(sent?.headers);
        if (presented !== undefined) this.#retired.add(presented);
      }
      return response;
    };
    return wrapped;
  }

  /**
   * The stored access token is about to expire: one refresh for every request of this process that
   * meets it, then the new token. A failed refresh leaves the request its token, still valid for a
   * while; a refused refresh token was forgotten, and the next request asks for a login.
   */
  async #refreshAhead(headers: HeaderValues | undefined, fetch: FetchLike): Promise<string | undefined> {
    const refreshNow = this.options.refreshNow;
    const presented = authorizationCredential(new Headers(headers).get("authorization"), ["Bearer"]);
    if (refreshNow === undefined || presented === undefined || this.#marginMs <= 0) return undefined;
    const stored = this.store.read();
    if (stored.tokens?.access_token !== presented || typeof stored.tokens.refresh_token !== "string")
      return undefined;
    if (!this.#expiringSoon(stored)) return undefined;
    this.#ahead ??= (async () => {
      this.#retired.add(presented);
      try {
        await refreshNow(fetch);
      } catch {
        // The request goes on with the token it has (see above).
      } finally {
        this.#ahead = undefined;
      }
    })();
    await this.#ahead;
    const now = this.store.read().tokens?.access_token;
    return typeof now === "string" && now !== presented ? now : undefined;
  }

  /** Within the margin of its expiry (the margin is at most half the token's lifetime). */
  #expiringSoon(stored: StoredAuth): boolean {
    const expiry = expiryOf(stored);
    if (expiry === undefined || Number.isNaN(expiry)) return false;
    const lifetime = stored.tokens?.expires_in;
    const margin =
      typeof lifetime === "number" ? Math.min(this.#marginMs, (lifetime * 1000) / 2) : this.#marginMs;
    return expiry - margin <= Date.now();
  }

  async #refresh(
    base: FetchLike,
    url: string | URL,
    init: RequestInit | undefined,
    presented: string,
  ): Promise<Response> {
    return withFileLock(
      `${this.store.file}.refresh`,
      async () => {
        const stored = this.store.read();
        const usable = this.#usable(stored);
        if (usable !== undefined) return tokenResponse(usable);
        // The refresh token the SDK read was rotated by another process since: it is spent, and the
        // current one is the only one the authorization server will take.
        const current = stored.tokens?.refresh_token;
        const sending = typeof current === "string" ? current : presented;
        const response = await base(url, { ...init, body: withRefreshToken(init?.body, sending) });
        // The whole answer is read while the lock is held, and good tokens are saved before it is
        // released, so the next process in line finds them instead of refreshing again.
        const text = await response.text();
        if (response.ok) this.#save(text);
        else if (isInvalidGrant(text)) this.#forget(sending);
        return new Response(text, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      },
      { timeoutMs: this.options.lockTimeoutMs ?? 30_000 },
    );
  }

  /**
   * Stored tokens another process obtained that this one may use: an access token this process has
   * not retired, not bound to another process's DPoP key, and not within the margin of its expiry.
   */
  #usable(stored: StoredAuth): Record<string, unknown> | undefined {
    const tokens = stored.tokens;
    const access = tokens?.access_token;
    if (tokens === undefined || typeof access !== "string" || this.#retired.has(access)) return undefined;
    // A DPoP-bound token is tied to the key of the process that obtained it.
    if (typeof tokens.token_type === "string" && tokens.token_type.toLowerCase() === "dpop") return undefined;
    if (this.#expiringSoon(stored)) return undefined;
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
    // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
    this.store.update((current) =>
      withTokens(current, { refresh_token: current.tokens?.refresh_token, ...tokens }),
    );
  }

  /** The refresh token just refused is the stored one: that pair is gone; any other pair stays. */
  #forget(refused: string): void {
    this.store.update((current) => {
      if (current.tokens?.refresh_token !== refused) return current;
      const { tokens: _refused, expiresAt: _expiry, ...rest } = current;
      return rest;
    });
  }
}

function isTokenAnswer(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { access_token?: unknown }).access_token === "string"
  );
}

function isInvalidGrant(text: string): boolean {
  try {
    return (JSON.parse(text) as { error?: unknown }).error === "invalid_grant";
  } catch {
    return false;
  }
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

function withRefreshToken(body: unknown, refreshToken: string): URLSearchParams {
  const next = new URLSearchParams(body as URLSearchParams);
  next.set("refresh_token", refreshToken);
  return next;
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
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
