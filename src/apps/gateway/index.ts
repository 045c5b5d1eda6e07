// `mcp-bridge/gateway`: what a program needs to serve a bridge as one MCP server, over Streamable
// HTTP (`startGateway`) or stdio (`serveGatewayStdio`), and the types of the options a caller writes.
// `RequestForwarder` routes upstream elicitation and sampling to the client whose call caused them.

export type { GatewayLimits } from "./client-limits.js";
export { RequestForwarder, type RequestForwarderOptions } from "./forward.js";
export type { Gateway, GatewayOptions } from "./gateway.js";
export { startGateway } from "./gateway.js";
export type { StdioGatewayOptions } from "./gateway-options.js";
export type { GatewayOAuth } from "./jwt-auth.js";
export type { GatewayProfile } from "./profile.js";
export type { StateKeys } from "./sealed-state.js";
export { readStateKeys } from "./state-keys.js";
export type { GatewayToken } from "./static-tokens.js";
export { serveGatewayStdio } from "./stdio-server.js";
export type { StdioWireOptions } from "./stdio-wire.js";
