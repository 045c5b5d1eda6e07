#!/usr/bin/env node
// A notes MCP server over stdio: notes live in one JSON file under $NOTES_DIR (default: a folder of the
// user's own in the system temp directory, 0700). Tools create/list/read/delete notes; each note is also a resource, and a
// `summarize` prompt asks a model to summarize them.
import { randomUUID } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

interface Note {
  id: string;
  title: string;
  body: string;
  createdAt: string;
}

const dir = process.env.NOTES_DIR || join(tmpdir(), `mcp-bridge-notes-${process.getuid?.() ?? "user"}`);
const file = join(dir, "notes.json");

function load(): Note[] {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Note[];
  } catch {
    return [];
  }
}

function save(notes: Note[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // In a shared temp folder another user could have made the folder first: only a real folder of ours.
  const folder = lstatSync(dir);
  if (!folder.isDirectory() || (process.getuid && folder.uid !== process.getuid()))
    throw new Error(`${dir} is not a folder of this user; set NOTES_DIR to one`);
  // An unpredictable name created exclusively ("wx" never follows a planted link), then renamed over.
  const temp = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(notes, null, 2), { flag: "wx", mode: 0o600 });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
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
    return {
      contents: [
        { uri: uri.href, mimeType: "text/markdown", text: note ? `# ${note.title}\n\n${note.body}` : "" },
      ],
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
