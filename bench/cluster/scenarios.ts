/**
 * What a cluster must get right whichever replica the balancer picks, as scenarios over a running
 * cluster (cluster.ts). Each returns a row: its figures, and whether every correctness check held.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Cluster, Replica } from "./cluster.js";
import { type ModernCallAnswer, modernToolCall } from "./modern-call.js";

export interface ScenarioRow {
  readonly scenario: string;
  readonly ok: boolean;
  readonly figures: string;
  /** What failed, for the report (first few). */
  readonly problems: readonly string[];
}

const CALL_TIMEOUT_MS = 15_000;

function row(scenario: string, figures: string, problems: string[]): ScenarioRow {
  return { scenario, ok: problems.length === 0, figures, problems: problems.slice(0, 3) };
}

function textOf(result: { content?: unknown }): string {
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  return first?.text ?? "";
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160);
}

/** The served name of `tool` of upstream `server` (`serve`'s default format, "{server}_{tool}"). */
function served(server: string, tool: string): string {
  return `${server}_${tool}`;
}

/**
 * (a) 2025-era session clients: initialize, tools/list and `calls` calls each, every request of a
 * session going wherever nginx sends it. All must be answered.
 */
export async function sessionClients(cluster: Cluster, clients: number, calls: number): Promise<ScenarioRow> {
  const problems: string[] = [];
  const pids = new Set<number>();
  let answered = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const client = new Client(
        { name: `session-client-${i}`, version: "1" },
        { versionNegotiation: { mode: "legacy" } },
      );
      try {
        await client.connect(
          new StreamableHTTPClientTransport(cluster.balancer, {
            requestInit: { headers: { authorization: `Bearer ${cluster.token(100 + i)}` } },
          }),
        );
        const names = (await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS })).tools.map(
          (t) => t.name,
        );
        if (!names.includes(served("normal", "pid")))
          throw new Error(`no ${served("normal", "pid")} in tools/list`);
        for (let call = 0; call < calls; call++) {
          const result = await client.callTool(
            { name: served("normal", "pid"), arguments: {} },
            { timeout: CALL_TIMEOUT_MS },
          );
          const pid = Number(textOf(result));
          if (result.isError || !Number.isInteger(pid)) throw new Error(`pid answered ${textOf(result)}`);
          pids.add(pid);
          answered++;
        }
      } catch (error) {
        problems.push(`session client ${i}: ${messageOf(error)}`);
      } finally {
        await client.close().catch(() => undefined);
      }
    }),
  );
  return row(
    "(a) 2025-era sessions",
    `${clients} sessions x (initialize, list, ${calls} calls): ${answered}/${clients * calls} calls answered, by ${pids.size} upstream processes (replicas)`,
    problems,
  );
}

/** The answer a client gives to the question of a round: "<kind><client>" for "First"/"Second". */
function answerFor(answer: ModernCallAnswer, client: number): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(answer.result?.inputRequests ?? {})) {
    const first = /first/i.test(request.params?.message ?? "");
    responses[key] = {
      action: "accept",
      content: first ? { first: `a${client}` } : { second: `b${client}` },
    };
  }
  return responses;
}

/**
 * (b) 2026-07-28 clients through a tool that asks twice (three rounds), once on a 2025-era upstream
 * (the call parked on one replica) and once on a 2026-07-28 one (nothing parked). Every round goes
 * wherever nginx sends it; the result must carry both of this client's answers.
 */
export async function multiRoundClients(cluster: Cluster, clients: number): Promise<ScenarioRow> {
  const problems: string[] = [];
  const figures: string[] = [];
  for (const server of ["twice2025", "twice2026"]) {
    let correct = 0;
    // A 2025-era upstream's question reaches a client only while that client's call is the one
    // running on that server (forward.ts): its clients go one at a time; the 2026 ones all at once.
    const together = server === "twice2026";
    await inTurn(
      together,
      Array.from({ length: clients }, (_, i) => async () => {
        const token = cluster.token(200 + i);
        const name = served(server, "two_questions");
        try {
          let answer = await modernToolCall(cluster.balancer, { name, token, timeoutMs: CALL_TIMEOUT_MS });
          for (let round = 0; round < 3 && answer.result?.resultType === "input_required"; round++) {
            const requestState = answer.result.requestState ?? "";
            answer = await modernToolCall(cluster.balancer, {
              name,
              token,
              timeoutMs: CALL_TIMEOUT_MS,
              retry: { requestState, inputResponses: answerFor(answer, i) },
            });
          }
          const text = answer.result?.content?.[0]?.text;
          if (text === `a${i} then b${i}`) correct++;
          else
            problems.push(
              `${server} client ${i}: ${answer.status} ${text ?? answer.error?.message ?? "no answer"}`,
            );
        } catch (error) {
          problems.push(`${server} client ${i}: ${messageOf(error)}`);
        }
      }),
    );
    figures.push(
      `${server}: ${correct}/${clients} correct${together ? " (concurrent)" : " (one at a time)"}`,
    );
  }
  return row("(b) 2026 multi-round elicitation", figures.join("; "), problems);
}

/** Runs the tasks all at once, or one after the other. */
async function inTurn(together: boolean, tasks: readonly (() => Promise<void>)[]): Promise<void> {
  if (together) {
    await Promise.all(tasks.map((task) => task()));
    return;
  }
  for (const task of tasks) await task();
}

/**
 * (c) One client over its per-minute limit: `3 * perMinute` calls spread by nginx over the replicas.
 * The cluster admits `perMinute`, plus what the bucket refills while the run lasts (perMinute / 60 s),
 * not one budget per replica.
 */
export async function rateLimitedClient(cluster: Cluster, perMinute: number): Promise<ScenarioRow> {
  const problems: string[] = [];
  const total = 3 * perMinute;
  const token = cluster.token(0);
  let next = 0;
  let admitted = 0;
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < total) {
        next++;
        try {
          const answer = await modernToolCall(cluster.balancer, {
            name: served("normal", "pid"),
            token,
            timeoutMs: CALL_TIMEOUT_MS,
          });
          if (answer.result && !answer.result.isError) admitted++;
          else if (/per minute|rate|limit/i.test(answer.error?.message ?? textOf(answer.result ?? {})))
            refused++;
          else
            problems.push(`call: ${answer.status} ${answer.error?.message ?? textOf(answer.result ?? {})}`);
        } catch (error) {
          problems.push(`call: ${messageOf(error)}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const refill = Math.ceil((seconds * perMinute) / 60);
  if (admitted < perMinute || admitted > perMinute + refill)
    problems.unshift(
      `admitted ${admitted}, expected ${perMinute} (+${refill} refilled in ${seconds.toFixed(1)} s)`,
    );
  return row(
    "(c) cluster-wide limit",
    `limit ${perMinute}/min, ${total} calls over ${cluster.replicas.length} replicas in ${seconds.toFixed(1)} s: ${admitted} admitted, ${refused} refused (allowed ${perMinute}..${perMinute + refill}; ${cluster.replicas.length * perMinute} if per replica)`,
    problems,
  );
}

/** A failed call of a pid caller, with the replicas (host:port, comma-separated) the balancer tried. */
export class CallFailed extends Error {
  constructor(
    message: string,
    readonly upstream: string | undefined,
  ) {
    super(message);
  }
}

/** A caller of the kill scenario: calls the `pid` tool, resolves to the pid that answered. */
export type PidCaller = () => Promise<number>;

/** A caller of `normal`'s pid tool over raw 2026-07-28 requests through the balancer. */
export function modernPidCaller(cluster: Cluster, tokenIndex: number): PidCaller {
  return async () => {
    const answer = await modernToolCall(cluster.balancer, {
      name: served("normal", "pid"),
      token: cluster.token(tokenIndex),
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const pid = Number(answer.result?.content?.[0]?.text);
    if (answer.result?.isError || !Number.isInteger(pid))
      throw new CallFailed(
        `${answer.status} ${answer.error?.message ?? JSON.stringify(answer.result)} (via ${answer.upstream ?? "?"})`,
        answer.upstream,
      );
    return pid;
  };
}

/**
 * (d) `callers` share `calls` calls; as call calls/3 starts, `victim` is SIGKILLed. Calls the balancer
 * had passed to it before it knew it was gone may fail (nginx does not replay a POST already sent: a
 * 502), but only those: a lost call the balancer says it had passed to another replica is a problem.
 * Callers that cannot tell where a call went (MCP clients) get the looser bound of one lost call per
 * caller. Every call started after the replica was gone must be answered, and none by it.
 */
export async function killedReplica(
  cluster: Cluster,
  victim: Replica,
  victimPid: number,
  callers: readonly PidCaller[],
  calls: number,
): Promise<ScenarioRow> {
  const problems: string[] = [];
  let next = 0;
  let ok = 0;
  let gone = false;
  let inFlightAtKill = 0;
  let inFlight = 0;
  let failedInFlight = 0;
  let failedAfter = 0;
  let answeredByVictimAfter = 0;
  const lostReasons: string[] = [];
  const lostElsewhere: string[] = [];
  /** Lost calls that cannot say which replica had them (an MCP client's error, a timeout). */
  let lostUnplaced = 0;
  // Each caller makes its share and no more: a caller whose calls failed fast (502s from the dying
  // replica) would otherwise take others' turns and pass its per-minute limit, failing a call that the
  // kill did not cost.
  const share = Math.ceil(calls / callers.length);
  await Promise.all(
    callers.map(async (call) => {
      for (let made = 0; made < share && next < calls; made++) {
        const index = next++;
        if (index === Math.floor(calls / 3)) {
          inFlightAtKill = inFlight;
          void cluster.kill(victim).then(() => {
            gone = true;
          });
        }
        const afterGone = gone;
        inFlight++;
        try {
          const pid = await call();
          ok++;
          if (afterGone && pid === victimPid) answeredByVictimAfter++;
        } catch (error) {
          if (afterGone) {
            failedAfter++;
            if (problems.length < 3) problems.push(`after the kill: ${messageOf(error)}`);
          } else {
            failedInFlight++;
            if (lostReasons.length < 3) lostReasons.push(messageOf(error));
            const via = error instanceof CallFailed ? error.upstream : undefined;
            if (via === undefined) lostUnplaced++;
            else if (!via.split(/,\s*/).includes(victim.address)) lostElsewhere.push(messageOf(error));
          }
        } finally {
          inFlight--;
        }
      }
    }),
  );
  if (lostElsewhere.length > 0)
    problems.push(
      `${lostElsewhere.length} calls lost that were not on the killed replica: ${lostElsewhere.slice(0, 3).join("; ")}`,
    );
  // Where the replica is not known, the looser bound: each caller has one call at a time.
  if (lostUnplaced > callers.length)
    problems.push(`${lostUnplaced} calls lost, more than the ${callers.length} that can be in flight`);
  if (answeredByVictimAfter > 0)
    problems.push(`${answeredByVictimAfter} calls answered by the killed replica`);
  return row(
    "(d) replica killed",
    `${calls} calls by ${callers.length} callers, replica ${victim.index} SIGKILLed at call ${Math.floor(calls / 3)} (${inFlightAtKill} in flight on all replicas): ${ok} answered, ${failedInFlight} lost in flight, ${failedAfter} failed after it was gone${lostReasons.length > 0 ? ` (lost: ${lostReasons.join("; ")})` : ""}`,
    problems,
  );
}

/** The rows as a table on stdout. */
export function scenarioTable(rows: readonly ScenarioRow[]): string {
  const lines = rows.map((r) => `${r.ok ? "ok  " : "FAIL"}  ${r.scenario.padEnd(34)} ${r.figures}`);
  for (const r of rows) for (const problem of r.problems) lines.push(`      ${r.scenario}: ${problem}`);
  return `${lines.join("\n")}\n`;
}
