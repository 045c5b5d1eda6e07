export type { Gateway, GatewayOptions } from "./gateway.js";
export { startGateway } from "./gateway.js";
export type { RequestTracker } from "./handle.js";
export { requestTracker } from "./handle.js";
export type { GatewayLimits } from "./limits.js";
export type { GatewayOAuth } from "./oauth.js";
export type { GatewayProfile } from "./profile.js";
export { serveGatewayStdio } from "./stdio.js";
export type { GatewayToken } from "./tokens.js";
