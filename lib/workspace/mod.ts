/**
 * The workspace manifest: loading, validation and types.
 *
 * @module
 */
export * from "./types.ts";
export * from "./load_workspace.ts";
export * from "./scope.ts";
export * from "./names.ts";
export * from "./program_path.ts";
export { findWorkspaceRoot, MANIFEST_NAME } from "./manifest_file.ts";
