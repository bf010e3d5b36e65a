/**
 * Importing MCP client configurations (Claude Desktop, Cursor, VS Code, Codex) as
 * `[extensions.*]` tables.
 *
 * @example
 * ```ts
 * import { importExtensions } from "./mod.ts";
 * // await importExtensions("/repo", "claude_desktop_config.json");
 * ```
 *
 * @module
 */

export { formatImportReport, importExtensions } from "./import_config.ts";
export type { ImportOptions, ImportReport } from "./import_config.ts";
export { mapServer } from "./map_server.ts";
export { parseClientConfig, readClientConfig } from "./read_config.ts";
