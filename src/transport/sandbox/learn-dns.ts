/**
 * The names a traced server looked up, read from the DNS messages it sent and received (buffers in
 * the strace output, see learn-strace.ts): a question gives the name, an answer's A/AAAA records give
 * the addresses it stands for, so a later `connect()` to one of them is reported as the name (what
 * an egress list holds) rather than an address. Bytes are the server's: every read is bounded and a
 * message that does not parse is ignored.
 */

/** A name at `offset` (labels, or a compression pointer): the name and where the field ends. */
function readName(bytes: Uint8Array, start: number): { name: string; end: number } | undefined {
  const labels: string[] = [];
  let offset = start;
  let end: number | undefined;
  for (let hops = 0; hops < 64; hops++) {
    const length = bytes[offset];
    if (length === undefined) return undefined;
    if (length === 0) {
      const name = labels.join(".").toLowerCase();
      return /^[a-z0-9_.-]{1,253}$/.test(name) ? { name, end: end ?? offset + 1 } : undefined;
    }
    if ((length & 0xc0) === 0xc0) {
      const low = bytes[offset + 1];
      if (low === undefined) return undefined;
      end ??= offset + 2;
      offset = ((length & 0x3f) << 8) | low;
      continue;
    }
    if (length > 63 || offset + 1 + length > bytes.length) return undefined;
    labels.push(Buffer.from(bytes.subarray(offset + 1, offset + 1 + length)).toString("latin1"));
    offset += 1 + length;
  }
  return undefined;
}

const u16 = (bytes: Uint8Array, at: number): number | undefined => {
  const high = bytes[at];
  const low = bytes[at + 1];
  return high === undefined || low === undefined ? undefined : (high << 8) | low;
};

/** The question of a DNS message (a query or an answer) over UDP; undefined when it is none. */
export function dnsQuestion(bytes: Uint8Array): string | undefined {
  if (bytes.length < 17 || u16(bytes, 4) !== 1) return undefined;
  return readName(bytes, 12)?.name;
}

/** The addresses an answer gives for its question (A and AAAA records); [] for anything else. */
export function dnsAnswers(bytes: Uint8Array): { name: string; addresses: string[] } | undefined {
  const flags = u16(bytes, 2);
  if (flags === undefined || (flags & 0x8000) === 0) return undefined;
  const question = bytes.length >= 17 && u16(bytes, 4) === 1 ? readName(bytes, 12) : undefined;
  if (!question) return undefined;
  let offset = question.end + 4;
  const addresses: string[] = [];
  const count = Math.min(u16(bytes, 6) ?? 0, 64);
  for (let index = 0; index < count; index++) {
    const owner = readName(bytes, offset);
    if (!owner) break;
    const type = u16(bytes, owner.end);
    const length = u16(bytes, owner.end + 8);
    const data = owner.end + 10;
    if (type === undefined || length === undefined || data + length > bytes.length) break;
    const record = bytes.subarray(data, data + length);
    if (type === 1 && length === 4) addresses.push([...record].join("."));
    if (type === 28 && length === 16) addresses.push(ipv6(record));
    offset = data + length;
  }
  return { name: question.name, addresses };
}

function ipv6(record: Uint8Array): string {
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2)
    groups.push((((record[at] ?? 0) << 8) | (record[at + 1] ?? 0)).toString(16));
  // The same compressed form strace and Node print (`::1`, `2606:4700::6810:84e5`).
  const full = groups.join(":");
  const runs = [...full.matchAll(/(?:^|:)0(?::0)+(?::|$)/g)].sort((a, b) => b[0].length - a[0].length);
  const longest = runs[0];
  if (!longest || longest.index === undefined) return full;
  return `${full.slice(0, longest.index)}::${full.slice(longest.index + longest[0].length)}`;
}
