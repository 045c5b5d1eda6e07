import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/apps/cli/command-table.js";
import { DECLARED_COMMANDS } from "../../src/apps/cli/help-table.js";

/**
 * `--help` and argument parsing read the static table in help-table.ts so that no command is loaded
 * for them; the commands' own declarations stay the source of truth. A flag, summary or example
 * changed in a command file without `npm run help-table` fails here, not in a user's help text.
 */
describe("the static help table", () => {
  it("holds exactly the commands' declarations, in order (else run `npm run help-table`)", () => {
    const declarations = COMMANDS.map(({ run: _run, ...declaration }) => declaration);
    expect(DECLARED_COMMANDS).toEqual(declarations);
  });
});
