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
