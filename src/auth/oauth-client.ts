import type { AuthProvider, FetchLike, OAuthClientProvider } from "@modelcontextprotocol/client";
import {
  auth,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  isDpopNonceChallenge,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
} from "@modelcontextprotocol/client";
import type { OAuthSettings, RemoteServerDefinition } from "../config/model.js";
import { oauthLoginNeeded, refreshTokenRefused } from "../errors/auth-errors.js";
import { JwtBearerProvider } from "./jwt-bearer.js";
import { BridgeOAuthProvider } from "./provider.js";
import { type AuthorizationStep, headlessStep, loopbackStep } from "./redirect.js";
import { DEFAULT_REFRESH_MARGIN_MS, RefreshCoordinator } from "./refresh.js";
import { AuthStore, defaultAuthDir } from "./store.js";
import { tokenKeychain } from "./token-keychain.js";

export interface AuthOptions {
  /** Where tokens and registrations are kept (default `$XDG_CONFIG_HOME/mcp-bridge/auth`). */
  readonly storageDir?: string;
  /**
   * How the authorization step runs: `none` (default for hosts: a server that needs a login fails
   * with a message saying to run `mcp-bridge auth login`), `headless` (follow the redirects without a
   * browser), `loopback` (a browser and a 127.0.0.1 callback, for people).
   */
  readonly authorization?: "none" | "headless" | "loopback";
  /** Shows the authorization URL in loopback mode (open a browser, print it). */
  readonly present?: (authorizationUrl: URL) => void | Promise<void>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whose login this is, when not the user's own: a gateway client's identity (see AuthStore). Its
   * tokens are stored apart from the user's and every other caller's.
   */
  readonly caller?: string;
  /** The authorization step to use instead of `authorization`'s (the gateway's consent step). */
  readonly step?: AuthorizationStep;
}

/** What a connection needs to authenticate to one remote server. */
export interface AuthHandle {
  readonly provider: AuthProvider | OAuthClientProvider;
  /** The fetch the transport should use (it watches for a 401 on a request that carried a token). */
  readonly fetch?: FetchLike;
  /** After the SDK started an authorization: the callback's query, to finish it. */
  authorizationResult(): Promise<URLSearchParams | undefined>;
  close(): Promise<void>;
}

const HEADLESS_REDIRECT = "http://127.0.0.1:1/callback";

/**
 * The auth provider for a remote server, or undefined when it needs none: client credentials
 * (client_secret_basic, private_key_jwt) from the server's `oauth` settings, else the authorization
 * code flow when the server has `oauth` settings or a login was stored by `mcp-bridge auth login`.
 */
export async function createAuthHandle(
  definition: RemoteServerDefinition,
  options: AuthOptions = {},
): Promise<AuthHandle | undefined> {
  // Each grant's required settings were checked when the config loaded (config/oauth-settings.ts).
  const settings: OAuthSettings = definition.oauth ?? {};
  if (settings.grant === "client_credentials") {
    // Without an expected issuer the SDK sends the credentials wherever the server points (and warns).
    const expected = settings.issuer ? { expectedIssuer: settings.issuer } : {};
    const provider = settings.privateKeyPem
      ? new PrivateKeyJwtProvider({
          clientId: settings.clientId,
          privateKey: settings.privateKeyPem,
          algorithm: settings.signingAlgorithm ?? "ES256",
          ...expected,
        })
      : new ClientCredentialsProvider({
          clientId: settings.clientId,
          clientSecret: settings.clientSecret ?? "",
          ...expected,
        });
    return { provider, authorizationResult: async () => undefined, close: async () => {} };
  }
  if (settings.grant === "jwt_bearer") {
    const provider = new JwtBearerProvider(settings.clientId, settings.assertion, settings.scopes?.join(" "));
    return { provider, authorizationResult: async () => undefined, close: async () => {} };
  }
  if (settings.grant === "cross_app_access") {
    const idp = settings.idp;
    const provider = new CrossAppAccessProvider({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret ?? "",
      // The ID-JAG comes from the enterprise identity provider, for this authorization server and resource.
      assertion: async (context) => {
        const common = {
          audience: context.authorizationServerUrl,
          resource: context.resourceUrl,
          idToken: idp.idToken,
          clientId: idp.clientId,
          ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
          ...(context.scope ? { scope: context.scope } : {}),
          fetchFn: context.fetchFn,
        };
        const grant = idp.tokenEndpoint
          ? await requestJwtAuthorizationGrant({ ...common, tokenEndpoint: idp.tokenEndpoint })
          : await discoverAndRequestJwtAuthGrant({ ...common, idpUrl: idp.issuer ?? "" });
        return grant.jwtAuthGrant;
      },
    });
    return { provider, authorizationResult: async () => undefined, close: async () => {} };
  }
  const store = new AuthStore(
    options.storageDir ?? defaultAuthDir(options.env),
    definition.name,
    definition.url,
    { caller: options.caller, keychain: tokenKeychain(options.env) ?? null },
  );
  const mode = options.step ? "step" : (options.authorization ?? "none");
  if (!definition.oauth && !store.read().tokens && mode === "none") return undefined;
  let step: AuthorizationStep;
  if (options.step) {
    step = options.step;
  } else if (mode === "loopback") {
    const stored = store.read().redirectUri;
    const port = settings.redirectPort ?? (stored ? Number(new URL(stored).port) : 0);
    step = await loopbackStep({ port, present: options.present ?? (() => {}) }).catch(() =>
      loopbackStep({ port: 0, present: options.present ?? (() => {}) }),
    );
  } else if (mode === "headless") {
    step = headlessStep(HEADLESS_REDIRECT);
  } else {
    step = {
      redirectUrl: store.read().redirectUri ?? HEADLESS_REDIRECT,
      start: async () => {
        // Says why a login is needed when the provider just forgot tokens the server refused.
        throw oauth.tokensRefused
          ? refreshTokenRefused({ server: definition.name })
          : oauthLoginNeeded({ server: definition.name });
      },
      result: async () => undefined,
      close: async () => {},
    };
  }
  const oauth = new BridgeOAuthProvider(settings, store, step);
  const refreshes = new RefreshCoordinator(store, {
    marginMs: definition.tokenRefreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS,
    // Ahead of expiry only where no login can start: a refresh refused there must not open a browser
    // (loopback) or start an authorization nobody finishes (headless).
    ...(mode === "none"
      ? { refreshNow: (fetchFn: FetchLike) => auth(oauth, { serverUrl: definition.url, fetchFn }) }
      : {}),
  });
  // A 401 while holding a token can mean the resource moved to another authorization server
  // (SEP-2352): forget the cached discovery so the SDK looks again instead of reusing the old one.
  const watchingFetch: FetchLike = async (url, init) => {
    const response = await fetch(url, init);
    // A DPoP nonce challenge is a 401 too, but only asks for a retry with the server's nonce.
    if (
      response.status === 401 &&
      new Headers(init?.headers).has("authorization") &&
      !isDpopNonceChallenge(response)
    ) {
      oauth.invalidateCredentials("discovery");
    }
    return response;
  };
  return {
    provider: oauth,
    fetch: refreshes.fetch(watchingFetch),
    authorizationResult: () => step.result(),
    close: () => step.close(),
  };
}

export { presentedToken } from "./refresh.js";
export { AuthStore, defaultAuthDir } from "./store.js";
