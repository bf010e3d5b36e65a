/**
 * `toolhost init`: scaffold a working json tool, plain tool or tool-session harness with
 * its manifest declarations and a passing `node --test` file. The templates are
 * TypeScript string constants, so every build (compiled binary, npm, Deno) carries them.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { formatScaffoldReport, scaffold } from "./mod.ts";
 * const repo = mkdtempSync(join(tmpdir(), "my-tools-"));
 * const report = scaffold({ kind: "harness", name: "notes", repo });
 * console.log(formatScaffoldReport(report));
 * ```
 *
 * @module
 */

export {
  checkKindAndName,
  checkTemplate,
  HARNESS_TEMPLATES,
  type HarnessTemplate,
  INIT_KINDS,
  type InitKind,
  isInitKind,
  MAX_BROWSER_NAME,
  MAX_HARNESS_NAME,
} from "./kinds.ts";
export { fillTemplate } from "./fill.ts";
export { appendToManifest, createManifest, type ManifestEdit } from "./manifest_edit.ts";
export { type PlannedFile, planScaffold, type ScaffoldPlan } from "./plan.ts";
export {
  DEFAULT_ARTIFACT,
  DEFAULT_EVAL,
  type InitTarget,
  resolveTarget,
  type TargetOptions,
} from "./target.ts";
export {
  scaffold,
  type ScaffoldOptions,
  type ScaffoldReport,
  ScaffoldRolledBack,
} from "./scaffold.ts";
export { formatScaffoldReport, type ReportOptions, shellQuote } from "./next_steps.ts";
export { existsError, UndoLog } from "./undo_log.ts";
