/**
 * `toolhost demo`: a readable tour of a workspace: what it declares and whether each tool
 * is ready. Used by `deno task demo` on examples/.
 *
 * @module
 */

import { Command } from "commander";
import { buildSelectionReport } from "../../check/check_report.ts";
import { lockSectionFor } from "../../lock_build/check_lock.ts";
import { selectTools } from "../../registry/selection.ts";
import { type CommonOptions, openWorkspace, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";
import { demoCalls } from "./demo_calls.ts";

/** What to do about a tool (or eval) that differs from toolhost.lock. */
const LOCK_FIX = "differs from toolhost.lock, so calls are refused (LOCK_MISMATCH); " +
  "review with `toolhost lock --check`, then run `toolhost lock`";

/**
 * Build the `demo` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { demoCommand } from "./demo.ts";
 * demoCommand(processIo, () => {});
 * ```
 */
export function demoCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("demo")
    .description("Show what a workspace declares, whether each tool is ready, and sample calls.")
    .addHelpText("after", "\nExample:\n  toolhost demo --repo examples\n");
  withCommon(cmd).action(async (o: CommonOptions) => {
    const { ws, stateDir } = await openWorkspace(o);
    io.out(`Workspace: ${ws.root}\n\nArtifacts:\n`);
    for (const a of ws.artifacts.values()) {
      const parent = a.parent ? `  (child of ${a.parent})` : "";
      io.out(`  ${a.id.padEnd(10)} ${a.kind.padEnd(6)} ${a.relPath}${parent}\n`);
    }
    let allReady = true;
    for (const ev of ws.evals.values()) {
      const sel = selectTools(ws, { eval: ev.id });
      const report = buildSelectionReport(ws, sel, process.env as Record<string, string>);
      // As `tools check` does: a tool that differs from toolhost.lock is refused when called.
      const lock = await lockSectionFor(ws, ev.id, stateDir);
      const blocked = new Set(lock?.blocked ?? []);
      allReady &&= report.ready && (lock === undefined || lock.status === "verified");
      io.out(`\nEval ${ev.id} (${ev.audience}) — scope: ${sel.scope.join(", ")}\n`);
      for (const t of report.tools) {
        const ready = t.ready && !blocked.has(t.name);
        const mark = ready ? "ready    " : "NOT READY";
        io.out(`  ${mark} ${t.name.padEnd(26)} ${t.protocol.padEnd(14)} ${t.description}\n`);
        for (const c of t.checks.filter((c) => !c.ok)) {
          io.out(`            ✗ ${c.check}: ${c.detail}\n`);
        }
        if (blocked.has(t.name)) io.out(`            ✗ lock: ${LOCK_FIX}\n`);
      }
      if (lock !== undefined && lock.status !== "verified" && blocked.size === 0) {
        const why = lock.reason ?? `${lock.drift.length} difference(s)`;
        io.out(`  ✗ toolhost.lock: ${lock.status} (${why}): ${LOCK_FIX}\n`);
      }
    }
    const callsOk = await demoCalls(ws, stateDir, io);
    io.out(
      `\n${
        allReady && callsOk ? "Everything is ready." : "Some tools are not ready (see above)."
      }\n`,
    );
    done(allReady && callsOk ? EXIT.ok : EXIT.failure);
  });
  return cmd;
}
