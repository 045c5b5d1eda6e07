import type { ElicitationHandler, ElicitationResponse } from "./api.js";

/**
 * Default without a host handler: decline. Nobody is there to answer, and a server's own schema
 * defaults are not the user's consent (a server could "ask" for an API key and supply the answer).
 */
export const declineElicitation: ElicitationHandler = (): ElicitationResponse => ({ action: "decline" });
