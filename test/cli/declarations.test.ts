import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/apps/cli/command-table.js";
import { DECLARED_COMMANDS } from "../../src/apps/cli/declarations/declared-commands.js";

/**
 * `--help` and argument parsing read the declarations in `declarations/` so that no command is loaded
 * for them; each command spreads its own declaration into its spec. A command missing from the list,
 * listed in another order, or changing a declared field after the spread fails here, not in a user's
 * help text.
 */
describe("the commands' declarations", () => {
  it("are exactly the commands' own, in the order of --help", () => {
    const declarations = COMMANDS.map(({ run: _run, ...declaration }) => declaration);
    expect(DECLARED_COMMANDS).toEqual(declarations);
  });
});
