import { ToolExecutionError } from "../../../../errors/index.js";
import {
  restPromptArgumentNotString,
  restPromptNotFound,
  restRateLimited,
  restResourceAmbiguous,
  restResourceNotFound,
  restToolNotFound,
} from "../../../../errors/rest-errors.js";
import type { ToolResult } from "../../../../results/tool-result.js";
import { definedOnly } from "../../../../util/defined.js";
import { onServer } from "../../forwarding/forwarded-features.js";
import { listedTool } from "../../forwarding/listed-tool.js";
import {
  reachablePrompt,
  reachablePrompts,
  reachableResources,
  reachableTemplates,
  resourceOwners,
} from "../../forwarding/reachable.js";
import { callerOf, identityOf, limitKeyOf } from "../../identity/authenticate.js";
import { profileAllows, surfaceAllows } from "../../identity/profile.js";
import { HttpFailure, readJsonObject } from "./http-json.js";
import { type RestRequest, required } from "./rest-request.js";

/**
 * The REST face's calls through the bridge, each limited to the caller's profile exactly as `/mcp`
 * limits it (profile.ts, reachable.ts), and each marked as running on its upstream server (see
 * forward.ts) so that a question that server asks meanwhile is never routed to another client.
 */

/** Aborted when the client hangs up before its answer is written: the upstream call is cancelled. */
function hangUpSignal(request: RestRequest): AbortSignal {
  const controller = new AbortController();
  request.res.once("close", () => {
    if (!request.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** `POST /tools/{name}`: 200 with the result (an `isError` result included), or the error's status. */
export async function callTool(request: RestRequest, name: string) {
  const { bridge, limiter, tracker, forwarder, maxBodyBytes } = request.options;
  const signal = hangUpSignal(request);
  // A tool whose server still connects is waited for, as on `/mcp` (listed-tool.ts).
  const tool = await listedTool(bridge, name, signal);
  // A tool outside the profile is answered exactly like a tool that does not exist.
  if (!tool || !profileAllows(request.profile, tool.server, tool.name)) {
    throw new HttpFailure(404, restToolNotFound({ name }));
  }
  const args = await readJsonObject(request.req, maxBodyBytes);
  return tracker.handle("tools/call", { name, arguments: args }, async () => {
    // Over the concurrency limit the call waits its turn (in flight for drain; until the client hangs
    // up), up to a bound.
    const admitted = await limiter.admit(limitKeyOf(request.req), signal);
    if (!admitted.ok) {
      const refusal = restRateLimited({ tool: name, reason: admitted.reason });
      throw new HttpFailure(429, refusal, { "retry-after": String(admitted.retryAfterSeconds) });
    }
    // The slot is held until the answer has left, as `/mcp` holds it (forwarding/served-tool-call.ts): a client that
    // does not read cannot make the gateway hold more results than it may run calls.
    if (request.res.closed) admitted.release();
    else request.res.once("close", admitted.release);
    try {
      const result = await onServer(forwarder, tool.server, () =>
        bridge.call(name, args, {
          signal,
          validateArguments: true,
          onError: "throw",
          caller: callerOf(request.req.auth),
          reach: request.profile,
          upstream: request.options.ownUpstream?.(identityOf(request.req.auth)),
        }),
      );
      return callAnswer(result);
    } catch (error) {
      // The tool ran and reported a failure: its own content is the answer, as upstream sent it.
      if (error instanceof ToolExecutionError && isToolResult(error.result)) return callAnswer(error.result);
      throw error;
    }
  });
}

function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && "content" in value && "text" in value;
}

function callAnswer(result: ToolResult) {
  return definedOnly({
    text: result.text,
    isError: result.isError,
    content: result.content,
    structuredContent: result.structuredContent,
  });
}

/** `GET /resources`: the resources and resource templates of the servers the caller may reach. */
export async function listResources(request: RestRequest) {
  const { bridge, tracker } = request.options;
  return tracker.handle("resources/list", {}, async () => ({
    resources: await reachableResources(bridge, request.profile),
    resourceTemplates: await reachableTemplates(bridge, request.profile),
  }));
}

/** `GET /resources/read?uri=URI[&server=NAME]`: its contents, text as text and blobs as base64. */
export async function readResource(request: RestRequest) {
  const { bridge, tracker, forwarder } = request.options;
  const uri = required(request, "uri");
  const named = request.url.searchParams.get("server") ?? undefined;
  return tracker.handle("resources/read", { uri }, async () => {
    const owner = await ownerOf(request, uri, named);
    const content = await onServer(forwarder, owner, () =>
      bridge.readResource(uri, { binary: true, server: owner, signal: hangUpSignal(request) }),
    );
    return {
      server: content.server,
      uri: content.uri,
      text: content.text,
      contents: content.parts.map((part) =>
        part.bytes
          ? definedOnly({
              uri: part.uri,
              mimeType: part.mimeType,
              blob: Buffer.from(part.bytes).toString("base64"),
            })
          : definedOnly({ uri: part.uri, mimeType: part.mimeType, text: part.text ?? "" }),
      ),
    };
  });
}

/** The server a read goes to, chosen among those the caller may reach (reachable.ts), before anything is read. */
async function ownerOf(request: RestRequest, uri: string, named: string | undefined): Promise<string> {
  const { bridge } = request.options;
  if (named !== undefined) {
    const known = bridge.servers().some((s) => s.name === named);
    if (!known || !surfaceAllows(request.profile, named)) {
      throw new HttpFailure(404, restResourceNotFound({ uri }));
    }
    return named;
  }
  // The candidates themselves, not the MCP face's wire errors: a listing that fails is that failure.
  const owners = await resourceOwners(bridge, request.profile, uri);
  const [owner, ...others] = owners;
  if (owner === undefined) throw new HttpFailure(404, restResourceNotFound({ uri }));
  if (others.length > 0) throw new HttpFailure(409, restResourceAmbiguous({ uri, servers: owners }));
  return owner;
}

/** `GET /prompts`: the prompts of the servers the caller may reach. */
export async function listPrompts(request: RestRequest) {
  const { bridge, tracker } = request.options;
  return tracker.handle("prompts/list", {}, async () => ({
    prompts: await reachablePrompts(bridge, request.profile),
  }));
}

/** `POST /prompts/{name}` with the arguments (strings) as a JSON object: the prompt's messages. */
export async function getPrompt(request: RestRequest, name: string) {
  const { bridge, tracker, forwarder, maxBodyBytes } = request.options;
  const args = await readJsonObject(request.req, maxBodyBytes);
  for (const [argument, value] of Object.entries(args)) {
    if (typeof value !== "string") throw restPromptArgumentNotString({ name, argument });
  }
  return tracker.handle("prompts/get", { name }, async () => {
    let owner: string;
    try {
      owner = (await reachablePrompt(bridge, request.profile, name)).server;
    } catch {
      throw new HttpFailure(404, restPromptNotFound({ name }));
    }
    const result = await onServer(forwarder, owner, () =>
      bridge.getPrompt(name, args, { signal: hangUpSignal(request) }),
    );
    return definedOnly({ description: result.description, messages: result.messages });
  });
}
