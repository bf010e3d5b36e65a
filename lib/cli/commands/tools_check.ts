/**
 * `toolhost tools check`: discover and validate declarations and print per-tool, session
 * and extension readiness as a table (`--json`: the JSON report with scopes and schemas).
 * Static unless `--execute`.
 *
 * @module
 */

import { Command } from "commander";
import { buildSelectionReport, type SelectionReport } from "../../check/check_report.ts";
import { InvocationError } from "../../errors/errors.ts";
import { type SelectionSpec, selectTools } from "../../registry/selection.ts";
import type { Workspace } from "../../workspace/types.ts";
import { type CommonOptions, openWorkspace, withCommon } from "../common_options.ts";
import { type CliIo, EXIT, processIo } from "../exit.ts";
import { colorEnabled, paint } from "../color.ts";
import { renderCheckReport } from "../../check/human_report.ts";
import { STDERR_HELP, stderrCopy } from "../stderr_copy.ts";
import { lockSectionFor } from "../../lock_build/check_lock.ts";
import { warnLockDisabled } from "../../lock/open_lock.ts";
import { prefetchSandboxSupport } from "../../sandbox/detect.ts";

/** Options of `tools check`. */
export interface CheckOptions extends CommonOptions {
  /** Eval selector. */
  eval?: string;
  /** Artifact selector. */
  artifact?: string;
  /** Audience with --artifact. */
  audience?: string;
  /** Run one tool. */
  execute?: boolean;
  /** Tool to run. */
  tool?: string;
  /** JSON arguments for --execute. */
  args?: string;
  /** `--no-lock` sets this to false. */
  lock?: boolean;
  /** Print the JSON report instead of the table. */
  json?: boolean;
  /** With --execute: copy tool and harness stderr to this stderr. */
  stderr?: boolean;
}

/**
 * Validate flag combinations exactly as the seed describes; returns the selection spec
 * (or undefined for "every eval").
 *
 * @example
 * ```ts
 * import { checkSelection } from "./tools_check.ts";
 * checkSelection(undefined, { eval: "app/review" }); // { eval: "app/review" }
 * ```
 */
export function checkSelection(
  positional: string | undefined,
  o: CheckOptions,
): SelectionSpec | undefined {
  if (positional !== undefined && o.eval !== undefined) {
    throw new InvocationError(
      "give the eval either as a positional selector or with --eval, not both",
    );
  }
  const evalId = positional ?? o.eval;
  if (evalId !== undefined && (o.artifact !== undefined || o.audience !== undefined)) {
    throw new InvocationError("an eval selector cannot be combined with --artifact or --audience");
  }
  if ((o.artifact === undefined) !== (o.audience === undefined)) {
    throw new InvocationError("--artifact and --audience must be given together");
  }
  if (o.audience !== undefined && o.audience !== "agent" && o.audience !== "human") {
    throw new InvocationError('--audience must be "agent" or "human"');
  }
  if (o.execute && o.tool === undefined) throw new InvocationError("--execute requires --tool");
  if (!o.execute && o.tool !== undefined) throw new InvocationError("--tool requires --execute");
  if (!o.execute && o.args !== undefined) throw new InvocationError("--args requires --execute");
  if (!o.execute && o.stderr) throw new InvocationError("--stderr requires --execute");
  if (o.execute && evalId === undefined && o.artifact === undefined) {
    throw new InvocationError(
      "--execute runs a tool of one eval: name it (`toolhost tools check EVAL --execute " +
        "--tool T`), or pass --artifact A --audience agent|human",
    );
  }
  if (evalId !== undefined) return { eval: evalId };
  if (o.artifact !== undefined) {
    return { artifact: o.artifact, audience: o.audience as "agent" | "human" };
  }
  return undefined;
}

function staticReports(ws: Workspace, spec: SelectionSpec | undefined): SelectionReport[] {
  const env = process.env as Record<string, string | undefined>;
  if (spec) {
    const sel = selectTools(ws, spec);
    return [buildSelectionReport(ws, sel, env, "artifact" in spec ? spec.artifact : undefined)];
  }
  return [...ws.evals.keys()].map((id) =>
    buildSelectionReport(ws, selectTools(ws, { eval: id }), env)
  );
}

/** Issue 10: each eval's `toolhost.lock` verification; drift makes the eval not ready. */
async function attachLockSections(
  ws: Workspace,
  reports: SelectionReport[],
  stateDir: string,
): Promise<void> {
  for (const r of reports) {
    if (r.eval === undefined) continue;
    const lock = await lockSectionFor(ws, r.eval, stateDir);
    if (lock === undefined) continue;
    r.lock = lock;
    if (lock.status !== "verified") r.ready = false;
  }
}

/**
 * Build the `tools check` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { toolsCheckCommand } from "./tools_check.ts";
 * const cmd = toolsCheckCommand(processIo, (code) => console.log(code));
 * ```
 */
export function toolsCheckCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("check")
    .description(
      "Validate declarations and report each tool, session and extension as ready or not " +
        "ready, with the reason, its TOML key path and line, and the fix (--json: the full " +
        "report with scopes and schemas). Static by default: runs no program and writes " +
        "nothing. --execute runs one tool and prints its result as JSON.",
    )
    .argument("[eval]", "eval to check, e.g. app/review (same as --eval)")
    .option("--eval <eval>", "eval to check")
    .option("--artifact <id>", "check an Artifact and its children (with --audience)")
    .option("--audience <audience>", "agent or human (with --artifact)")
    .option("--execute", "run one tool (requires --tool)")
    .option("--tool <name>", "tool to run: published name, or short name with --artifact")
    .option("--args <json>", "JSON object of arguments for --execute (agent tools only)")
    .option("--json", "print the JSON report (scopes, schemas, every check) instead of the table")
    .option("--no-lock", "skip toolhost.lock verification (development only; warns loudly)")
    .option("--stderr", `with --execute: ${STDERR_HELP}`)
    .addHelpText(
      "after",
      `
Examples:
  toolhost tools check                          # every eval's scope
  toolhost tools check app/review               # one eval
  toolhost tools check --artifact app --audience agent
  toolhost tools check app/review --json        # scopes, schemas, every check
  toolhost tools check --execute --eval app/review --tool read_app \\
    --args '{"path":"README.md"}' --stderr

Exit codes: 0 ready/success, 1 declaration/preflight/tool/cleanup failure,
2 invalid invocation.`,
    );
  withCommon(cmd).action(async (positional: string | undefined, o: CheckOptions) => {
    const spec = checkSelection(positional, o);
    // The confinement probe (one bwrap run) overlaps loading the workspace; the report
    // reads its answer. It decides exactly what the synchronous probe would.
    const probe = o.execute ? undefined : prefetchSandboxSupport();
    const { ws, stateDir } = await openWorkspace(o);
    if (o.lock === false) warnLockDisabled((l) => io.err(l));
    if (o.execute) {
      // Loaded only for --execute: it brings the registry and the MCP client.
      const { executeCheck } = await import("./tools_check_execute.ts");
      const copy = stderrCopy(io, o.stderr);
      const r = await executeCheck(ws, spec!, o.tool!, o.args, stateDir, o.lock !== false, copy);
      io.out(`${JSON.stringify(r.report, null, 2)}\n`);
      return done(r.ok ? EXIT.ok : EXIT.failure);
    }
    await probe;
    const reports = staticReports(ws, spec);
    if (o.lock !== false) await attachLockSections(ws, reports, stateDir);
    if (o.json) {
      const body = spec ? reports[0] : { evals: reports, ready: reports.every((r) => r.ready) };
      io.out(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      const color = io === processIo && colorEnabled(process.stdout);
      io.out(renderCheckReport(ws, reports, { paint: (t, s) => paint(t, s, color) }));
    }
    done(reports.every((r) => r.ready) ? EXIT.ok : EXIT.failure);
  });
  return cmd;
}
