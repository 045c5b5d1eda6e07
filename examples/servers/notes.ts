#!/usr/bin/env node
// A notes MCP server over stdio: notes live in one JSON file under $NOTES_DIR, else in `notes/` of the
// user's mcp-bridge cache folder (~/.cache/mcp-bridge/notes on Linux), a folder only this user can
// change: a shared temp folder would show every user's notes to everyone and let the first user's folder
// lock out the others. Tools create/list/read/delete notes; each note is also a resource (an unknown one
// is an MCP error), and a `summarize` prompt asks a model to summarize them.
import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer, ResourceNotFoundError, ResourceTemplate } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { userCacheDir } from "../../src/util/cache-dir.js";
import { ensurePrivateDir } from "../../src/util/private-path.js";

interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
}

const cacheDir = userCacheDir(process.env);
// Without any cache folder (no HOME), a folder of this user's own in the temp folder, checked like any other.
const dir =
  process.env.NOTES_DIR ||
  (cacheDir ? join(cacheDir, "notes") : join(tmpdir(), `mcp-bridge-notes-${process.getuid?.() ?? "user"}`));
const file = join(dir, "notes.json");

/**
 * The notes file, in a folder checked on every use (created 0700, or an existing one of this user's
 * that others cannot write, never chmod-ed): a refusal is the call's error, not a crash.
 */
function notesFile(): string {
  try {
    ensurePrivateDir(dir, { what: "notes" });
  } catch (error) {
    throw new Error(
      `Refusing to keep notes in ${dir}: ${(error as Error).message} Or set NOTES_DIR to a private folder.`,
    );
  }
  return file;
}

function load(): Note[] {
  let text: string;
  try {
    text = readFileSync(notesFile(), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return JSON.parse(text) as Note[];
}

function save(notes: Note[]): void {
  const temp = `${notesFile()}.${randomUUID()}.tmp`;
  writeFileSync(temp, JSON.stringify(notes, null, 2), { mode: 0o600, flag: "wx" });
  renameSync(temp, file);
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "create",
  {
    description: "Create a note",
    inputSchema: z.object({
      title: z.string().describe("Short title"),
      body: z.string().describe("The note text"),
    }),
  },
  async ({ title, body }) => {
    const notes = load();
    const note: Note = {
      // Random, not time-based: two notes made in the same millisecond must not share an id.
      id: randomUUID().slice(0, 8),
      title,
      body,
      createdAt: new Date().toISOString(),
    };
    notes.push(note);
    save(notes);
    return text(`Created note ${note.id}: ${title}`);
  },
);
server.registerTool("list", { description: "List all notes (id and title)" }, async () => {
  const notes = load();
  return text(notes.length === 0 ? "No notes yet." : notes.map((n) => `${n.id}  ${n.title}`).join("\n"));
});
server.registerTool(
  "read",
  { description: "Read one note", inputSchema: z.object({ id: z.string().describe("Note id from list") }) },
  async ({ id }) => {
    const note = load().find((n) => n.id === id);
    return note
      ? text(`# ${note.title}\n\n${note.body}`)
      : {
          content: [{ type: "text" as const, text: `No note with id ${id}. Use list to see the ids.` }],
          isError: true,
        };
  },
);
server.registerTool(
  "delete",
  { description: "Delete one note", inputSchema: z.object({ id: z.string().describe("Note id from list") }) },
  async ({ id }) => {
    const notes = load();
    const remaining = notes.filter((n) => n.id !== id);
    if (remaining.length === notes.length) {
      return { content: [{ type: "text" as const, text: `No note with id ${id}.` }], isError: true };
    }
    save(remaining);
    return text(`Deleted note ${id}`);
  },
);
server.registerResource(
  "note",
  new ResourceTemplate("note://{id}", {
    list: async () => ({
      resources: load().map((n) => ({ uri: `note://${n.id}`, name: n.title, mimeType: "text/markdown" })),
    }),
  }),
  { description: "A note as markdown", mimeType: "text/markdown" },
  async (uri, { id }) => {
    const note = load().find((n) => n.id === id);
    if (!note) throw new ResourceNotFoundError(uri.href, `No note with id ${id}. Use list to see the ids.`);
    return {
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: `# ${note.title}\n\n${note.body}` }],
    };
  },
);
server.registerPrompt("summarize", { description: "Summarize all notes" }, async () => ({
  messages: [
    {
      role: "user" as const,
      content: {
        type: "text" as const,
        text: `Summarize these notes:\n\n${load()
          .map((n) => `- ${n.title}: ${n.body}`)
          .join("\n")}`,
      },
    },
  ],
}));

await server.connect(new StdioServerTransport());
