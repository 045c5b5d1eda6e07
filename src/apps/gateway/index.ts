// `mcp-bridge/gateway`: what a program needs to serve a bridge as one MCP server, over Streamable
// HTTP (`startGateway`) or stdio (`serveGatewayStdio`), and the types of the options a caller writes.
// `RequestForwarder` routes upstream elicitation and sampling to the client whose call caused them.

export type { GatewayLimits } from "./admission/client-limits.js";
export type { Gateway, GatewayOptions } from "./entry/gateway.js";
export { startGateway } from "./entry/gateway.js";
export type { StdioGatewayOptions } from "./entry/gateway-options.js";
export {
  type ServedGateway,
  type ServeGatewayOptions,
  serveGateway,
} from "./entry/serve-gateway.js";
export { serveGatewayStdio } from "./entry/stdio-server.js";
export type { StdioWireOptions } from "./entry/stdio-wire.js";
export { RequestForwarder, type RequestForwarderOptions } from "./forwarding/forward.js";
export type { GatewayOAuth } from "./identity/jwt-auth.js";
export type { GatewayProfile } from "./identity/profile.js";
export type { StateKeys } from "./identity/sealed-state.js";
export { readStateKeys } from "./identity/state-keys.js";
export type { GatewayToken } from "./identity/static-tokens.js";
