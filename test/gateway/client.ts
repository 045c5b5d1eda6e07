import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export type Era = "2025-11-25" | "2026-07-28";

/** A downstream client of the gateway, pinned to one protocol era, closed by `await using`. */
export async function connect(
  url: string,
  mode: Era,
  token: string | undefined,
  onToolsChanged?: () => void,
): Promise<Client & AsyncDisposable> {
  const client = new Client(
    { name: "gateway-test", version: "1.0.0" },
    {
      versionNegotiation: { mode: mode === "2025-11-25" ? "legacy" : { pin: mode } },
      ...(onToolsChanged
        ? { listChanged: { tools: { autoRefresh: false, onChanged: onToolsChanged } } }
        : {}),
    },
  );
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

export const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((c) => c.text ?? "").join("");
