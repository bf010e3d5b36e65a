/**
 * `toolhost sweep`: clean the session directories of toolhost processes that ended
 * without cleaning up (killed, crashed), killing their recorded process groups only while
 * pid and start time still match. Sessions of running toolhost processes are left alone.
 *
 * @module
 */

import { Command } from "commander";
import { sweepSessions } from "../../sessions/sweep.ts";
import { checkStateDir } from "../../registry/state_dir_check.ts";
import { join } from "node:path";
import { InvocationError } from "../../errors/errors.ts";
import { findWorkspaceRoot } from "../../workspace/manifest_file.ts";
import { type CommonOptions, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";
import { withProgress } from "../progress.ts";

/**
 * Build the `sweep` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { sweepCommand } from "./sweep.ts";
 * sweepCommand(processIo, () => {});
 * ```
 */
export function sweepCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("sweep")
    .description(
      "Clean stale tool-session, call and artifact directories left by a toolhost that was killed or crashed. " +
        "Kills their recorded process groups (only while pid, start time and boot id still match).",
    )
    .option("--json", "print the report as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  toolhost sweep --repo examples\n\n" +
        "Sweeping needs only the state directory: it also runs when toolhost.toml does\n" +
        "not load, and with --state-dir outside any workspace.\n\n" +
        "Exit codes: 0 clean, 1 some directory could not be cleaned (its journal is\nkept).",
    );
  withCommon(cmd).action(async (o: CommonOptions) => {
    const { root, stateDir } = sweepTarget(o);
    // A state dir reached through a symlink is refused before anything is swept there.
    if (root !== undefined) checkStateDir(root, stateDir);
    const report = await withProgress("sweeping stale sessions", () => sweepSessions(stateDir));
    if (o.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else {
      io.out(
        `swept ${report.swept} stale session(s), ${report.calls} stale call(s) and ` +
          `${report.artifacts} stale artifact store(s); ` +
          `${report.active} active left alone; ${report.refused} refused (identity not ` +
          `verifiable, nothing signalled); ${report.failed} failed\n`,
      );
      for (const p of report.problems) io.out(`  ${p}\n`);
    }
    done(report.failed > 0 ? EXIT.failure : EXIT.ok);
  });
  return cmd;
}

/**
 * The workspace root (when there is one) and the state directory to sweep. Only the
 * manifest's place is looked up, never its contents: a manifest that does not load (being
 * edited, after the crash that left the mess) must not keep stale processes running, and
 * `--state-dir` (a dead replica's) may be swept from outside any workspace.
 */
function sweepTarget(o: CommonOptions): { root?: string; stateDir: string } {
  if (o.stateDir !== undefined && o.repo === undefined) {
    try {
      return { root: findWorkspaceRoot(undefined), stateDir: o.stateDir };
    } catch (e) {
      if (e instanceof InvocationError) return { stateDir: o.stateDir };
      throw e;
    }
  }
  const root = findWorkspaceRoot(o.repo);
  return { root, stateDir: o.stateDir ?? join(root, ".toolhost", "state") };
}
