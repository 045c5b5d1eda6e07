import { describe, expect, it } from "vitest";
import { type Bridge, SkillVerificationError, startBridge } from "../../src/index.js";
import { startHttpFixture } from "../fixtures/servers/index.js";
import { inProcessEntry } from "../helpers/in-process.js";

async function readsOf(bridge: Bridge): Promise<string[]> {
  return JSON.parse((await bridge.call("skills/reads", {})).text) as string[];
}

describe("skills (the io.modelcontextprotocol/skills extension)", () => {
  it("lists skills without reading a file, and loads one with its verified files", async () => {
    await using bridge = await startBridge({
      servers: { skills: inProcessEntry("skills"), plain: inProcessEntry("normal") },
    });
    const skills = await bridge.skills();
    expect(skills.map((skill) => `${skill.server}/${skill.name}`).sort()).toEqual([
      "skills/pdf-processing",
      "skills/release-notes",
    ]);
    const pdf = skills.find((skill) => skill.name === "pdf-processing");
    expect(pdf).toMatchObject({
      uri: "skill://pdf-processing/SKILL.md",
      description: "Extract, fill, and assemble PDF documents",
    });
    expect(pdf?.files).toHaveLength(2);
    expect(await bridge.skills({ server: "plain" })).toEqual([]);
    expect(await readsOf(bridge)).toEqual([]);

    const loaded = await bridge.loadSkill("pdf-processing");
    expect(loaded).toMatchObject({
      server: "skills",
      name: "pdf-processing",
      frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents" },
    });
    expect(loaded.instructions).toContain("Use the forms reference");
    expect(loaded.files.map((file) => [file.uri, file.text, file.verified])).toEqual([
      ["skill://pdf-processing/references/FORMS.md", "Fill fields by their names.\n", true],
    ]);
    expect(await readsOf(bridge)).toEqual([
      "skill://pdf-processing/SKILL.md",
      "skill://pdf-processing/references/FORMS.md",
    ]);
    const manifestOnly = await bridge.loadSkill("skill://release-notes/SKILL.md", {
      server: "skills",
      files: false,
    });
    expect(manifestOnly.instructions.trim()).toBe("Group changes by kind.");
  });

  it("names the skills there are when asked for one no server lists", async () => {
    await using bridge = await startBridge({ servers: { skills: inProcessEntry("skills") } });
    const error = await bridge.loadSkill("pdf").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SKILL_NOT_FOUND" });
    expect((error as Error).message).toContain("skills/pdf-processing");
    expect(await readsOf(bridge)).toEqual([]);
  });

  for (const tamper of ["digest", "size", "frontmatter"] as const) {
    it(`refuses a SKILL.md whose ${tamper} does not match the listing, and reads nothing more`, async () => {
      await using bridge = await startBridge({
        servers: { skills: inProcessEntry("skills", {}, ["--tamper", tamper]) },
      });
      const error = await bridge.loadSkill("pdf-processing").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SkillVerificationError);
      expect(error).toMatchObject({
        code: "SKILL_VERIFICATION",
        server: "skills",
        skill: "pdf-processing",
        uri: "skill://pdf-processing/SKILL.md",
        reason: tamper,
      });
      expect((error as Error).message).toContain('Skill "pdf-processing" of server "skills" was not loaded');
      expect(await readsOf(bridge)).toEqual(["skill://pdf-processing/SKILL.md"]);
      // The untampered skill of the same server still loads.
      expect((await bridge.loadSkill("release-notes")).name).toBe("release-notes");
    });
  }
});

describe("a skill listed beyond the extension's limits", () => {
  it("is refused before any of its files is read", async () => {
    await using bridge = await startBridge({
      servers: { skills: inProcessEntry("skills", {}, ["--tamper", "oversize"]) },
    });
    await expect(bridge.loadSkill("pdf-processing")).rejects.toMatchObject({
      code: "SKILL_VERIFICATION",
      server: "skills",
      skill: "pdf-processing",
      reason: "size",
    });
    expect(await readsOf(bridge)).toEqual([]);
  });
});

describe("skills over the stateless 2026-07-28 protocol", () => {
  it("lists and loads a skill, and refuses a tampered SKILL.md", async () => {
    await using honest = await startHttpFixture("skills", ["--modern"]);
    await using tampered = await startHttpFixture("skills", ["--modern", "--tamper", "digest"]);
    await using bridge = await startBridge({
      servers: {
        honest: { type: "http", url: honest.url, negotiation: "2026-07-28" },
        tampered: { type: "http", url: tampered.url, negotiation: "2026-07-28" },
      },
    });
    expect(bridge.server("honest")?.protocolVersion).toBe("2026-07-28");
    expect((await bridge.skills()).map((skill) => `${skill.server}/${skill.name}`).sort()).toEqual([
      "honest/pdf-processing",
      "honest/release-notes",
      "tampered/pdf-processing",
      "tampered/release-notes",
    ]);
    const ambiguous = await bridge.loadSkill("pdf-processing").catch((e: unknown) => e);
    expect(ambiguous).toMatchObject({ code: "SKILL_NOT_FOUND" });
    expect((ambiguous as Error).message).toContain("{ server } (library)");
    const loaded = await bridge.loadSkill("pdf-processing", { server: "honest" });
    expect(loaded.files.map((file) => file.verified)).toEqual([true]);
    await expect(bridge.loadSkill("pdf-processing", { server: "tampered" })).rejects.toMatchObject({
      code: "SKILL_VERIFICATION",
      server: "tampered",
      reason: "digest",
    });
  });
});

describe("the server's self-description", () => {
  for (const mode of ["stdio", "2026-07-28"] as const) {
    it(`keeps serverInfo's title, description, websiteUrl and icons on the status (${mode})`, async () => {
      await using fixture = mode === "stdio" ? undefined : await startHttpFixture("skills", ["--modern"]);
      await using bridge = await startBridge({
        servers: {
          skills: fixture
            ? { type: "http", url: fixture.url, negotiation: "2026-07-28" }
            : inProcessEntry("skills"),
        },
      });
      expect(bridge.server("skills")?.serverInfo).toEqual({
        name: "skills",
        version: "1.0.0",
        title: "Skill Shelf",
        description: "Skills for documents",
        websiteUrl: "https://skills.example/",
        icons: [{ src: "https://skills.example/icon.png", mimeType: "image/png", sizes: ["48x48"] }],
      });
    });
  }
});
