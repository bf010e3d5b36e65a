/**
 * Sweeping `<stateDir>/artifacts`: each registry's artifact store (`artifacts/<id>`, spilled
 * output and the per-tool folders its calls write artifacts into). A registry removes its
 * own store when it closes; one whose process was killed (`kill -9`, a lost replica) left
 * it behind. The store is claimed by its owning process on first use (`owner.json`, the
 * call directory's record: lib/process call_dirs.ts `claimOwnedDir`), so:
 *
 * - a store whose owner is alive is never touched, whatever its age;
 * - a store whose owner exited is stale and removed (stale_folder.ts rules: confined to the
 *   state directory, no symlink followed; it holds no journal, so nothing is signalled);
 * - a store without a readable owner record is left alone while it is young (it may be
 *   being claimed right now) and stale once unchanged for `ownerlessAgeMs` (default a
 *   minute): a process killed between making its store and claiming it left it for good.
 *
 * @module
 */

import { join } from "node:path";
import { CALL_DIR_NAME, CALL_RECORD_FILES, removeTree } from "../process/call_dirs.ts";
import { Deadline } from "../process/proc_budget.ts";
import { type FolderSweep, sweepFolder } from "./folder_sweep.ts";
import { isStaleOwnedDir } from "./call_sweep.ts";
import {
  DEFAULT_SWEEP_MS,
  folderOptions,
  type SweepOptions,
  type SweepReport,
} from "./sweep_options.ts";

/**
 * The folder holding every registry's artifact store under a state dir.
 *
 * @example
 * ```ts
 * import { artifactsRoot } from "./artifact_sweep.ts";
 * artifactsRoot("/tmp/state"); // "/tmp/state/artifacts"
 * ```
 */
export function artifactsRoot(stateDir: string): string {
  return join(stateDir, "artifacts");
}

/**
 * Remove every artifact store of an exited owner into `report` (`artifacts`, `failed`,
 * `problems`). Creates nothing; never rejects.
 *
 * @example
 * ```ts
 * import { sweepArtifactStores } from "./artifact_sweep.ts";
 * const report = {
 *   swept: 0, active: 0, calls: 0, artifacts: 0, refused: 0, failed: 0, problems: [],
 * };
 * await sweepArtifactStores("/tmp/toolhost-state", {}, report);
 * console.log(report.artifacts);
 * ```
 */
export async function sweepArtifactStores(
  stateDir: string,
  opts: SweepOptions,
  report: SweepReport,
  deadline: Deadline = new Deadline(opts.maxMs ?? DEFAULT_SWEEP_MS),
): Promise<void> {
  const ownerlessAgeMs = opts.ownerlessAgeMs ?? 60_000;
  const sweep: FolderSweep = {
    root: artifactsRoot(stateDir),
    kind: "artifacts",
    names: CALL_DIR_NAME, // a registry id: 24 lowercase hex digits, as a call directory's
    label: "artifact store",
    journal: CALL_RECORD_FILES.journal, // never written here: an empty journal
    remove: removeTree,
    classify: async (path) => (await isStaleOwnedDir(path, ownerlessAgeMs) ? "stale" : "ignore"),
  };
  report.artifacts += await sweepFolder(sweep, folderOptions(opts, deadline), report);
}
