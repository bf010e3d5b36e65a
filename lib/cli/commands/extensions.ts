/**
 * `toolhost extensions import FILE`: bring the MCP servers of an existing client config
 * (Claude Desktop / Cursor `mcpServers`, VS Code `servers`, Codex `config.toml`) into
 * `toolhost.toml` as `[extensions.*]` tables.
 *
 * @module
 */

import { Command } from "commander";
import { formatImportReport, importExtensions } from "../../extensions_import/mod.ts";
import { findWorkspaceRoot } from "../../workspace/manifest_file.ts";
import { type CommonOptions, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";

const HELP_AFTER = `
Reads Claude Desktop (claude_desktop_config.json) and Cursor (mcp.json) "mcpServers", VS Code
(.vscode/mcp.json) "servers", or Codex (~/.codex/config.toml) [mcp_servers.NAME], and appends
each server as [extensions.NAME] to toolhost.toml, as text: your comments and formatting stay.
If the result would not load, toolhost.toml is left exactly as it was.

Secrets are never written: a literal token in an Authorization header becomes
bearer_token_env_var, other secret-looking env values and headers become references to
environment variables. The report names each variable to set and whatever could not be
carried over. Servers whose name is already declared are skipped.

Examples:
  toolhost extensions import ~/.cursor/mcp.json
  toolhost extensions import ~/.codex/config.toml --dry-run

Exit codes: 0 imported (or nothing to import), 1 the result would not load, 2 bad FILE.
`;

/** Options of `extensions import`. */
interface ImportCliOptions extends CommonOptions {
  /** Print the text instead of appending it. */
  dryRun?: boolean;
}

/**
 * Build the `extensions` command (with `import`).
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { extensionsCommand } from "./extensions.ts";
 * extensionsCommand(processIo, () => {});
 * ```
 */
export function extensionsCommand(io: CliIo, done: (code: number) => void): Command {
  const ext = new Command("extensions")
    .description("Manage MCP servers taken in as extensions.")
    .addHelpText("after", "\nExample:\n  toolhost extensions import ~/.cursor/mcp.json\n");
  const imp = new Command("import")
    .description("Append the MCP servers of a client config file to toolhost.toml.")
    .argument("<FILE>", "Claude Desktop / Cursor / VS Code JSON, or Codex config.toml")
    .option("--dry-run", "print what would be appended; change nothing")
    .option("--json", "print the report as JSON")
    .addHelpText("after", HELP_AFTER);
  withCommon(imp).action(async (file: string, o: ImportCliOptions) => {
    const root = findWorkspaceRoot(o.repo);
    const report = await importExtensions(root, file, { dryRun: o.dryRun });
    if (o.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else {
      if (o.dryRun && report.text !== "") io.out(`${report.text.trimStart()}\n`);
      io.out(formatImportReport(report));
    }
    done(EXIT.ok);
  });
  ext.addCommand(imp);
  return ext;
}
