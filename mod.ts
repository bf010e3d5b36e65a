/**
 * toolhost — declare agent tools in a workspace manifest; validate, list, run,
 * supervise and serve them.
 *
 * @example
 * ```ts
 * import { loadWorkspace, Registry } from "./mod.ts";
 * const ws = await loadWorkspace("examples");
 * const reg = await Registry.open(ws, "app/review");
 * console.log(reg.list().map((t) => t.name));
 * await reg.close();
 * ```
 *
 * @module
 */

export * from "./lib/errors/errors.ts";
export * from "./lib/results/types.ts";
export type * from "./lib/workspace/types.ts";
export { loadWorkspace, loadWorkspaceSync } from "./lib/workspace/load_workspace.ts";
export type { LoadOptions } from "./lib/workspace/load_workspace.ts";
export { evalScope } from "./lib/workspace/scope.ts";
export { MANIFEST_NAME } from "./lib/workspace/manifest_file.ts";
export { Registry } from "./lib/registry/registry.ts";
export type { CallOptions, RegistryOptions, ToolListing } from "./lib/registry/registry.ts";
export { type RegisteredTool, type SelectionSpec, selectTools } from "./lib/registry/selection.ts";
export { buildSelectionReport } from "./lib/check/check_report.ts";
export type { SelectionReport, ToolReport } from "./lib/check/check_report.ts";
export type { ReadinessCheck } from "./lib/check/static_checks.ts";
export { compileSchema } from "./lib/schema/compile_schema.ts";
export { admitArgs, InvalidArguments } from "./lib/schema/admit_args.ts";
export { runCli } from "./lib/cli/main.ts";
export { VERSION } from "./lib/version.ts";
