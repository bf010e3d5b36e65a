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
export { evalToolSource, type ToolSource } from "./lib/mcp/tool_source.ts";
export type {
  CallOptions,
  RegistryExtensionOptions,
  RegistryOptions,
  ToolListing,
} from "./lib/registry/registry.ts";
export { type RegisteredTool, type SelectionSpec, selectTools } from "./lib/registry/selection.ts";
export { buildSelectionReport } from "./lib/check/check_report.ts";
export type { SelectionReport, ToolReport } from "./lib/check/check_report.ts";
export type { ReadinessCheck } from "./lib/check/static_checks.ts";
export { compileSchema } from "./lib/schema/compile_schema.ts";
export { admitArgs, InvalidArguments } from "./lib/schema/admit_args.ts";
export {
  countRendered,
  MAX_ARTIFACT_BYTES,
  MAX_ARTIFACTS_PER_ENVELOPE,
  parseEnvelope,
  removeSessionSubtree,
  renderEnvelope,
  SCHEMA_ARTIFACT_REF,
  SCHEMA_TOOL_RESULT,
  validateArtifactRef,
  validateEnvelope,
} from "./lib/odek/mod.ts";
export type { ArtifactRef, Envelope, ValidatedArtifact } from "./lib/odek/mod.ts";
export { ArtifactRefError, InvalidEnvelopeError } from "./lib/odek/mod.ts";
export { ArtifactStore } from "./lib/artifacts/mod.ts";
export { sweepSessions } from "./lib/sessions/sweep.ts";
export type { SweepReport } from "./lib/sessions/sweep.ts";
export { runCli } from "./lib/cli/main.ts";
export { VERSION } from "./lib/version.ts";
// plugins and the native catalog
export * from "./lib/plugins/mod.ts";
export type { PluginHost } from "./lib/plugins/host.ts";
export { FIRST_PARTY_PLUGINS } from "./plugins/mod.ts";
export { NATIVE_LIMITS, NATIVE_NAMES } from "./lib/native/mod.ts";
// toolhost.lock, resource limits, spill-to-artifact
export * from "./lib/lock/mod.ts";
export * from "./lib/lock_build/mod.ts";
export * from "./lib/limits/mod.ts";
export * from "./lib/spill/mod.ts";
