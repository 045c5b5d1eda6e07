import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { DPOP_SUPPORTED_ALGS, DpopSession } from "@modelcontextprotocol/client";
import type { OAuthSettings } from "../config/model.js";
import { noCodeVerifier } from "../errors/auth-errors.js";
import type { AuthorizationStep } from "./redirect.js";
import { type AuthStore, type StoredAuth, withTokens } from "./store.js";

/**
 * OAuth 2.1 authorization code + PKCE for one server. The SDK does discovery, dynamic registration,
 * scope selection, step-up, the `resource` parameter and refresh; this provider keeps what must
 * survive (registration, tokens) in the AuthStore and hands the browser step to an AuthorizationStep.
 */
export class BridgeOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  #codeVerifier: string | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  #dpop: Promise<DpopSession> | undefined;
  /** The access token last handed to the SDK: the only one this provider may ever forget. */
  #handedOut: unknown;
  /**
   * The authorization server refused the stored tokens (`invalid_grant`) and they were forgotten: the
   * login this asks for next says why, once, instead of a plain "needs a login".
   */
  tokensRefused = false;

  constructor(
    private readonly settings: OAuthSettings,
    private readonly store: AuthStore,
    private readonly step: AuthorizationStep,
  ) {
    if (settings.clientMetadataUrl) this.clientMetadataUrl = settings.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.step.redirectUrl;
  }

  /** The authorization request's `state`, from the step when it keeps one (the SDK sends none otherwise). */
  get state(): (() => string) | undefined {
    const step = this.step;
    return step.state && (() => step.state?.() ?? "");
  }

  get clientMetadata(): OAuthClientMetadata {
    const method =
      this.settings.tokenEndpointAuthMethod ?? (this.settings.clientSecret ? "client_secret_basic" : "none");
    return {
      client_name: "mcp-bridge",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: method,
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(" ") } : {}),
    };
  }

  /**
   * A registration (and its tokens) belongs to the authorization server that issued it: when the
   * resource moves to another one (SEP-2352), the client registers again there.
   */
  #sameIssuer(stored: StoredAuth, context: OAuthClientInformationContext | undefined): boolean {
    return !context?.issuer || !stored.issuer || stored.issuer === context.issuer;
  }

  clientInformation(context?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    if (this.settings.clientId) {
      return {
        client_id: this.settings.clientId,
        ...(this.settings.clientSecret ? { client_secret: this.settings.clientSecret } : {}),
      } as StoredOAuthClientInformation;
    }
    const stored = this.store.read();
    // A registration made for another redirect URI (the loopback port changed) cannot be used.
    if (stored.client && stored.redirectUri === this.redirectUrl && this.#sameIssuer(stored, context)) {
      return stored.client as StoredOAuthClientInformation;
    }
    return undefined;
  }

  saveClientInformation(
    information: StoredOAuthClientInformation,
    context?: OAuthClientInformationContext,
  ): void {
    if (this.settings.clientId) return;
    this.store.update((current) => ({
      ...current,
      client: information as unknown as Record<string, unknown>,
      redirectUri: this.redirectUrl,
      ...(context?.issuer ? { issuer: context.issuer } : {}),
    }));
  }

  tokens(context?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const stored = this.store.read();
    const tokens = this.#sameIssuer(stored, context)
      ? (stored.tokens as StoredOAuthTokens | undefined)
      : undefined;
    this.#handedOut = tokens?.access_token;
    return tokens;
  }

  saveTokens(tokens: StoredOAuthTokens, context?: OAuthClientInformationContext): void {
    this.tokensRefused = false;
    this.store.update((current) => ({
      ...withTokens(current, tokens as unknown as Record<string, unknown>),
      ...(context?.issuer ? { issuer: context.issuer } : {}),
    }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    await this.step.start(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#codeVerifier) throw noCodeVerifier();
    return this.#codeVerifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier" || scope === "all") this.#codeVerifier = undefined;
    if (scope === "discovery" || scope === "all") this.#discovery = undefined;
    if (scope === "all") this.store.clear();
    else if (scope === "tokens") {
      this.tokensRefused = true;
      this.store.update((current) => this.#withoutFailedTokens(current));
    } else if (scope === "client") this.store.update(({ client: _dropped, ...rest }) => rest);
  }

  /**
   * The SDK forgets tokens when the authorization server refuses them (`invalid_grant`). Another
   * process may have saved a newer pair meanwhile (see refresh.ts): only the pair the SDK was given,
   * the one that failed, is removed.
   */
  #withoutFailedTokens(current: StoredAuth): StoredAuth {
    if (current.tokens?.access_token !== this.#handedOut) return current;
    const { tokens: _failed, expiresAt: _expiry, ...rest } = current;
    return rest;
  }

  /**
   * DPoP (RFC 9449) when the authorization server advertises it: tokens are then bound to a key held
   * for this process's lifetime. A DPoP-bound token stored by an earlier run cannot be presented
   * without that key, so it is dropped and the next use logs in again.
   */
  async dpop(): Promise<DpopSession | undefined> {
    const metadata = this.#discovery?.authorizationServerMetadata as
      | { dpop_signing_alg_values_supported?: string[] }
      | undefined;
    const supported = metadata?.dpop_signing_alg_values_supported;
    if (!supported?.length) return undefined;
    if (!this.#dpop) {
      const alg = (["ES256", ...DPOP_SUPPORTED_ALGS] as const).find((candidate) =>
        supported.includes(candidate),
      );
      if (!alg) return undefined;
      this.#dpop = DpopSession.create({ alg });
      const stored = this.store.read().tokens as { token_type?: string } | undefined;
      if (stored?.token_type?.toLowerCase() === "dpop")
        this.store.update(({ tokens: _dropped, ...rest }) => rest);
    }
    return this.#dpop;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }
}
