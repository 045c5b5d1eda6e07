import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { TurnWrites } from "../../src/util/turn-writes.js";

/** A stream that records each write it is asked to make (one entry per system call on a real pipe). */
function recordingStream(): { stream: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      done();
    },
  });
  return { stream, writes };
}

describe("TurnWrites", () => {
  it("sends the first write of a turn at once and the rest of the turn together, in order", async () => {
    const { stream, writes } = recordingStream();
    const turn = new TurnWrites(stream);
    const lines = Array.from({ length: 32 }, (_, i) => `${i}\n`);
    const done: number[] = [];
    lines.forEach((line, i) => {
      turn.write(line, () => done.push(i));
    });
    expect(writes).toEqual([[lines[0]]]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[lines[0]], lines.slice(1)]);
    expect(done).toEqual(lines.map((_, i) => i));
    // The next turn starts over: its first write leaves at once.
    turn.write("next\n");
    expect(writes.at(-1)).toEqual(["next\n"]);
  });

  it("counts as backlog what was unread before the turn, not the writes it holds back", async () => {
    const held: Array<() => void> = [];
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        held.push(done);
      },
      writev(_chunks, done) {
        held.push(done);
      },
    });
    const turn = new TurnWrites(stream);
    turn.write("a".repeat(10));
    expect(turn.backlog).toBe(10);
    turn.write("b".repeat(100));
    turn.write("c".repeat(100));
    expect(turn.backlog).toBe(10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(turn.backlog).toBe(210);
    for (const done of held.splice(0)) done();
    await new Promise((resolve) => setImmediate(resolve));
    for (const done of held.splice(0)) done();
    expect(turn.backlog).toBe(0);
  });
});
