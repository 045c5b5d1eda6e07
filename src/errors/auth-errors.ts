/**
 * An OAuth login's own failures, raised inside the SDK's auth flow (which reports them with the
 * server's name): plain Errors, as the SDK's provider interface expects.
 */

/** A remote server that needs a login, reached where no browser can be opened. */
export const oauthLoginNeeded = ({ server }: { server: string }) =>
  new Error(`Server "${server}" needs an OAuth login: run \`mcp-bridge auth login ${server}\``);

/**
 * The authorization server refused the stored refresh token (`invalid_grant`: revoked, expired, or
 * spent elsewhere): the pair was forgotten, and only a new login brings tokens back.
 */
export const refreshTokenRefused = ({ server }: { server: string }) =>
  new Error(
    `Server "${server}": its authorization server refused the stored refresh token (revoked, expired or already used), so the login was forgotten: run \`mcp-bridge auth login ${server}\``,
  );

/** The SDK asked a jwt-bearer grant for a step that grant does not have. */
export const jwtBearerNoAuthorization = () => new Error("The jwt-bearer grant has no authorization step");
export const jwtBearerNoVerifier = () => new Error("The jwt-bearer grant uses no code verifier");

export const noCodeVerifier = () =>
  new Error("No PKCE code verifier: the authorization was not started by this process");

/** A headless login whose authorization server wanted a person to approve it. */
export const loginNotRedirected = ({ status }: { status: number }) =>
  new Error(
    `The authorization server answered HTTP ${status} without redirecting back; a person must approve this login (use \`mcp-bridge auth login\`).`,
  );

export const tooManyRedirects = () => new Error("The authorization server redirected too many times");

export const browserLoginTimedOut = () => new Error("Timed out waiting for the browser to finish the login");

/**
 * The gateway's per-caller mode (`oauth.perCaller`): a caller without tokens for the server could not
 * be asked to authorize (its client has no URL-mode elicitation, or no call to ask through).
 */
export const callerConsentNotAsked = ({ server }: { server: string }) =>
  new Error(
    `Server "${server}" needs your own authorization, and your MCP client cannot be asked for it: use a client that supports URL-mode elicitation, then call again.`,
  );

/** The caller declined (or cancelled) the authorization the gateway asked for. */
export const callerConsentDeclined = ({ server }: { server: string }) =>
  new Error(
    `Server "${server}" needs your own authorization, which was declined: call again and accept to open the authorization page.`,
  );

/** The caller accepted, but the authorization server never sent the browser back to the gateway. */
export const callerConsentTimedOut = ({ server }: { server: string }) =>
  new Error(
    `Server "${server}": the authorization was not completed in time (the browser never came back to the gateway's callback): call again.`,
  );
