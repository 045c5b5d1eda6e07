/**
 * `node dist/bench/hop-profile.js <stdio|http> [calls] [inFlight]`: warm `add` calls through one gateway
 * (`serve --stdio` or `serve --http`), then `calls` measured ones; prints the gateway's CPU per call.
 * With `MCP_BRIDGE_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"` the gateway writes its profile when
 * it exits; `node dist/bench/cpu-profile-summary.js FILE` summarizes it (steady state: the samples taken
 * after the warm-up, whose end this prints as a time since the gateway's start).
 */
import { cpuOf, httpSide, type Side, stdioSide } from "./gateway-hop.js";
import { measureThroughput } from "./stats.js";

const [kind = "stdio", countText = "5000", inFlightText = "1"] = process.argv.slice(2);
const count = Number(countText);
const inFlight = Number(inFlightText);
const side: Side = kind === "http" ? await httpSide(true) : await stdioSide(true);
await measureThroughput(2000, inFlight, side.call);
const before = cpuOf(side.pid);
const { perSecond } = await measureThroughput(count, inFlight, side.call);
const cpuUs = (cpuOf(side.pid) - before) / count;
console.log(
  `gateway ${kind} x${inFlight}: ${cpuUs.toFixed(0)} us gateway cpu/call, ${perSecond.toFixed(0)} calls/s`,
);
await side.close();
// Time for the gateway to exit and write its profile.
await new Promise((resolve) => setTimeout(resolve, 3000));
process.exit(0);
