import { describe, expect, it } from "vitest";
import { parseDotenv } from "../../src/config/dotenv.js";

describe("parseDotenv (envFile)", () => {
  it("reads KEY=value lines, quotes, export and comments; expands nothing", () => {
    const text = [
      "# a comment",
      "",
      "PLAIN=value # trailing comment",
      "export EXPORTED=yes",
      "SINGLE='a # not a comment ${HOME}'",
      'DOUBLE="line\\nnext" # comment',
      "EMPTY=",
      "not a line",
      "  SPACED = padded  ",
    ].join("\r\n");
    expect(parseDotenv(text)).toEqual({
      PLAIN: "value",
      EXPORTED: "yes",
      SINGLE: "a # not a comment ${HOME}",
      DOUBLE: "line\nnext",
      EMPTY: "",
      SPACED: "padded",
    });
  });
});
