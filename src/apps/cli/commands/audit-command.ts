import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { rotatedName } from "../../../audit/audit-log.js";
import { verifyAuditFiles } from "../../../audit/audit-verify.js";
import { auditFileUnreadable, noAuditFile } from "../../../errors/index.js";
import type { CommandContext } from "../command-context.js";
import { defineCommand } from "../command-spec.js";
import { loadCliConfig } from "../config-choice.js";
import { auditDeclaration } from "../declarations/config-commands.js";
import { writeJson } from "../output.js";
import { terminalText } from "../terminal.js";

/**
 * `mcp-bridge audit verify [FILE...]`: checks the hash chain of an audit log (its rotated files too,
 * in any order) and names each line where it breaks. Exit 0 when intact, 1 when not.
 */
async function runAudit(context: CommandContext): Promise<number> {
  const named = context.positionals.slice(1).map((file) => resolve(context.io.cwd, file));
  const files = named.length > 0 ? named : await configuredAuditFiles(context);
  const report = verifyAuditFiles(files, (file) => {
    try {
      return readFileSync(file, "utf8");
    } catch (error) {
      throw auditFileUnreadable({ file, detail: (error as NodeJS.ErrnoException).code ?? String(error) });
    }
  });
  const ok = report.problems.length === 0;
  if (context.global.json) {
    writeJson(context.io, {
      ok,
      records: report.records,
      startsAt: report.startsAt,
      problems: report.problems,
    });
    return ok ? 0 : 1;
  }
  for (const problem of report.problems) {
    context.io.stdout.write(`${terminalText(problem.file)}:${problem.line}: ${problem.problem}\n`);
  }
  const from =
    report.startsAt === undefined ? "" : ` (from record #${report.startsAt}: earlier files not given)`;
  context.io.stdout.write(
    ok
      ? `Audit chain intact: ${report.records} records${from}.\n`
      : `Audit chain broken: ${report.problems.length} problem(s) in ${report.records} records.\n`,
  );
  return ok ? 0 : 1;
}

/**
 * Without FILE: the config's `audit.file` with its rotated files (oldest first), so the whole chain
 * kept on disk is checked.
 */
async function configuredAuditFiles(context: CommandContext): Promise<string[]> {
  const config = await loadCliConfig(context, { consent: false });
  const audit = config.settings.audit;
  if (audit === undefined) throw noAuditFile();
  const rotated: string[] = [];
  for (let n = 1; existsSync(rotatedName(audit.file, n)); n++) rotated.unshift(rotatedName(audit.file, n));
  return [...rotated, audit.file];
}

export const auditCommand = defineCommand({
  ...auditDeclaration,
  run: runAudit,
});
