/**
 * `toolhost extensions import FILE`: the servers of an MCP client's configuration
 * appended to `toolhost.toml` as `[extensions.*]` tables — as text, so the manifest's
 * comments and formatting stay — and the workspace loaded again: if it would no longer
 * load, the manifest is restored byte for byte and nothing is imported. Servers whose
 * name is taken are skipped; what could not be carried over, and which environment
 * variables to set, is reported. No secret value is ever written.
 *
 * @module
 */

import { basename, join } from "node:path";
import { stringify } from "smol-toml";
import { DeclarationError, ToolhostError } from "../errors/errors.ts";
import { appendToManifest } from "../init/manifest_edit.ts";
import { loadWorkspace } from "../workspace/load_workspace.ts";
import { extensionsOf } from "../workspace/parse_extensions.ts";
import { mapServer } from "./map_server.ts";
import { readClientConfig } from "./read_config.ts";

/** What an import did. */
export interface ImportReport {
  /** Extension names appended (empty on a dry run). */
  added: string[];
  /** Servers not imported, with why. */
  skipped: { server: string; why: string }[];
  /** Notes per imported extension. */
  notes: { extension: string; notes: string[] }[];
  /** Environment variables to set. */
  setEnv: string[];
  /** The text appended (or that would be, on a dry run). */
  text: string;
}

/** Options of {@link importExtensions}. */
export interface ImportOptions {
  /** Print what would be appended without writing. Default false. */
  dryRun?: boolean;
}

/**
 * Import the servers of `file` into the workspace at `root`.
 *
 * @example
 * ```ts
 * import { importExtensions } from "./import_config.ts";
 * // const report = await importExtensions("/repo", "/home/me/.cursor/mcp.json");
 * // report.added // ["github", "linear"]
 * ```
 */
export async function importExtensions(
  root: string,
  file: string,
  opts: ImportOptions = {},
): Promise<ImportReport> {
  const ws = await loadWorkspace(root);
  const config = readClientConfig(file);
  const taken = new Set([...extensionsOf(ws).decls.keys(), ...ws.artifacts.keys()]);
  const report: ImportReport = { added: [], skipped: [], notes: [], setEnv: [], text: "" };
  const tables: Record<string, Record<string, unknown>> = {};
  for (const [server, entry] of config.servers) {
    const m = mapServer(server, entry, config.format);
    if (m.table === undefined) {
      report.skipped.push({ server, why: m.notes.join("; ") });
      continue;
    }
    if (taken.has(m.name)) {
      report.skipped.push({ server, why: `the name \`${m.name}\` is already declared` });
      continue;
    }
    taken.add(m.name);
    tables[m.name] = m.table;
    if (m.name !== server) m.notes.unshift(renamedNote(server));
    if (m.notes.length > 0) report.notes.push({ extension: m.name, notes: m.notes });
    for (const v of m.setEnv) if (!report.setEnv.includes(v)) report.setEnv.push(v);
  }
  const names = Object.keys(tables);
  if (names.length === 0) return report;
  report.text = `\n# Imported from ${basename(file).replace(/[\r\n]/g, "")} by ` +
    `\`toolhost extensions import\`. Admit them into an eval with extensions = [...].\n` +
    stringify({ extensions: tables });
  if (opts.dryRun) return report;
  const edit = appendToManifest(join(ws.root, "toolhost.toml"), report.text);
  try {
    await loadWorkspace(ws.root);
  } catch (e) {
    edit.undo();
    if (e instanceof DeclarationError) {
      throw new ToolhostError(
        "DECLARATION_ERROR",
        `the imported servers would make toolhost.toml invalid, so nothing was changed:\n${e.message}`,
      );
    }
    throw e;
  }
  report.added = names;
  return report;
}

/**
 * The report as lines for the terminal.
 *
 * @example
 * ```ts
 * import { formatImportReport } from "./import_config.ts";
 * formatImportReport({ added: ["fs"], skipped: [], notes: [], setEnv: [], text: "" });
 * ```
 */
export function formatImportReport(r: ImportReport): string {
  const lines: string[] = [];
  if (r.added.length > 0) {
    lines.push(`added to toolhost.toml: ${r.added.map((n) => `[extensions.${n}]`).join(", ")}`);
  } else lines.push("nothing was added to toolhost.toml");
  for (const s of r.skipped) lines.push(`skipped \`${s.server}\`: ${s.why}`);
  for (const n of r.notes) for (const x of n.notes) lines.push(`${n.extension}: ${x}`);
  if (r.setEnv.length > 0) {
    lines.push(`set these environment variables before using them: ${r.setEnv.join(", ")}`);
  }
  if (r.added.length > 0) {
    lines.push(
      `next: admit them into an eval (extensions = [${
        r.added.map((n) => `"${n}"`).join(", ")
      }]), then run \`toolhost lock\``,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The note of a server imported under another name than its client's. */
function renamedNote(server: string): string {
  const shown = JSON.stringify(server.length > 64 ? `${server.slice(0, 64)}…` : server);
  return `renamed from ${shown}: extension names are lowercase letters, digits, \`_\` and \`-\``;
}
