import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { jwtBearerNoAuthorization, jwtBearerNoVerifier } from "../errors/auth-errors.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * RFC 7523 JWT-bearer grant for workload identity federation (SEP-1933): the workload's own JWT
 * (from its platform, given to mcp-bridge through the config) is the assertion; no browser, no secret.
 * Errors from the token endpoint surface as they are, without retrying or switching grant types.
 */
export class JwtBearerProvider implements OAuthClientProvider {
  #tokens: StoredOAuthTokens | undefined;

  constructor(
    private readonly clientId: string,
    private readonly assertion: string,
    private readonly scope?: string,
  ) {}

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "mcp-bridge",
      redirect_uris: [],
      grant_types: [JWT_BEARER],
      token_endpoint_auth_method: "none",
      ...(this.scope ? { scope: this.scope } : {}),
    };
  }

  clientInformation(): StoredOAuthClientInformation {
    return { client_id: this.clientId } as StoredOAuthClientInformation;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.#tokens = tokens;
  }

  redirectToAuthorization(): never {
    throw jwtBearerNoAuthorization();
  }

  saveCodeVerifier(): void {}

  codeVerifier(): never {
    throw jwtBearerNoVerifier();
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({
      grant_type: JWT_BEARER,
      assertion: this.assertion,
      client_id: this.clientId,
    });
    if (scope) params.set("scope", scope);
    return params;
  }
}
