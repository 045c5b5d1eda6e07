import type { IncomingMessage } from "node:http";

/** The request's body, or `too-large` once it passes `limit` bytes (the rest is not read). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  if (Number(req.headers["content-length"]) > limit) return "too-large";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.byteLength;
    if (size > limit) return "too-large";
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
