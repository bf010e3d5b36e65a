/**
 * `toolhost lock [--eval E]... [--check]`: write `toolhost.lock` — per eval, each listed
 * tool's description and schema hashes and execution-path pins, each session command's
 * pins, and each admitted extension's command, args and listed tools (extensions are
 * started once to list them). With `--check`, compare instead of writing: exit 1 and
 * list the differences when the lock is missing or out of date.
 *
 * @module
 */

import { Command } from "commander";
import { InvocationError } from "../../errors/errors.ts";
import { buildLock } from "../../lock_build/build_lock.ts";
import { describeDrift } from "../../lock/compare.ts";
import { redactDrift } from "../../lock/redact_drift.ts";
import type { Protector } from "../../redact/types.ts";
import { diffLocks } from "../../lock/diff_locks.ts";
import {
  LOCK_FILE_NAME,
  LOCK_VERSION,
  type LockFile,
  readLockFile,
  writeLockFile,
} from "../../lock/lock_file.ts";
import { type CommonOptions, openWorkspace, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";
import { suggestEval } from "../../registry/selection.ts";

/** Options of `lock`. */
interface LockOptions extends CommonOptions {
  eval?: string[];
  check?: boolean;
}

/**
 * Build the `lock` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { lockCommand } from "./lock.ts";
 * lockCommand(processIo, () => {});
 * ```
 */
export function lockCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("lock")
    .description(
      "Write toolhost.lock: what each eval may expose and run (each tool's whole declaration, " +
        "description and schema hashes, execution-path pins, programs with their SHA-256, " +
        "sessions, hooks, extensions and their tools). Tools that later differ from it are " +
        "refused with LOCK_MISMATCH until you review and lock again.",
    )
    .option("--eval <eval...>", "only these evals (other entries are kept)")
    .option(
      "--check",
      "do not write: exit 1 and list differences if the lock is out of date " +
        "(starts no extension that differs from the lock)",
    )
    .option("--json", "print a JSON summary")
    .addHelpText(
      "after",
      "\nExamples:\n  toolhost lock\n  toolhost lock --eval app/review\n  toolhost lock --check\n",
    );
  withCommon(cmd).action(async (o: LockOptions) => {
    const { ws, stateDir } = await openWorkspace(o);
    refuseUnknownEvals(o.eval ?? [], [...ws.evals.keys()]);
    // A check compares with the lock on disk and never starts an extension that differs
    // from it (nor any, when there is no lock): it must not run an unreviewed command.
    const locked = o.check ? await readLockFile(ws) : undefined;
    const checkAgainst = o.check
      ? locked ?? { lockfileVersion: LOCK_VERSION, evals: {} }
      : undefined;
    const protectors: Protector[] = [];
    const built = await buildLock(ws, { evals: o.eval, stateDir, checkAgainst, protectors });
    if (o.check) return done(reportCheck(io, o, locked, built, protectors));
    await writeLockFile(ws, built);
    reportWritten(io, o, built);
    done(EXIT.ok);
  });
  return cmd;
}

function refuseUnknownEvals(asked: string[], evals: string[]): void {
  for (const e of asked) {
    if (evals.includes(e)) continue;
    const hint = suggestEval(e, evals);
    throw new InvocationError(
      `no eval \`${e}\` in this workspace${hint ? ` (did you mean \`${hint}\`?)` : ""}; ` +
        `evals: ${evals.join(", ") || "(none)"}`,
      "UNKNOWN_EVAL",
    );
  }
}

/** Print how the lock on disk differs from `built`; the exit code. */
function reportCheck(
  io: CliIo,
  o: LockOptions,
  locked: LockFile | undefined,
  built: LockFile,
  protectors: Protector[],
): number {
  const drift = diffLocks(locked, built, o.eval);
  // Names out of the lock file may hold a protected value: shown as `[protected]`.
  const lines = drift.map((d) => describeDrift(redactDrift(d, protectors)));
  if (o.json) io.out(`${JSON.stringify({ upToDate: drift.length === 0, drift: lines })}\n`);
  else if (drift.length === 0) io.out(`${LOCK_FILE_NAME} is up to date\n`);
  else io.out(`${LOCK_FILE_NAME} is out of date:\n${lines.map((l) => `  ${l}\n`).join("")}`);
  return drift.length === 0 ? EXIT.ok : EXIT.failure;
}

function reportWritten(io: CliIo, o: LockOptions, built: LockFile): void {
  const ids = o.eval ?? Object.keys(built.evals);
  const counts = {
    evals: ids.length,
    tools: ids.reduce((n, id) => n + Object.keys(built.evals[id].tools).length, 0),
    extensions: ids.reduce((n, id) => n + Object.keys(built.evals[id].extensions).length, 0),
  };
  if (o.json) io.out(`${JSON.stringify({ written: LOCK_FILE_NAME, ...counts })}\n`);
  else {
    io.out(
      `wrote ${LOCK_FILE_NAME}: ${counts.evals} eval(s), ${counts.tools} tool(s), ` +
        `${counts.extensions} extension(s)\n`,
    );
  }
}
