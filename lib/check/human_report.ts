/**
 * `tools check`'s default output: per eval, a table of its tools, sessions and extensions,
 * each ready or not ready, and for what is not ready the reason, the TOML key path and
 * line, and the fix. `--json` prints the report itself instead.
 *
 * @module
 */

import { escapeShown } from "../paths/show_path.ts";
import { MANIFEST_NAME, readManifestBytes } from "../workspace/manifest_bytes.ts";
import { publishedName } from "../workspace/names.ts";
import { evalExtensions, type ExtensionDecl } from "../workspace/parse_extensions.ts";
import { Problems } from "../workspace/problems.ts";
import type { Workspace } from "../workspace/types.ts";
import type { SelectionReport } from "./check_report.ts";
import type { ConfinementInfo } from "../sandbox/report.ts";
import { checkKeyPath, fixFor } from "./fixes.ts";
import type { ReadinessCheck } from "./static_checks.ts";

/** The styles the report uses. */
export type ReportStyle = "red" | "green" | "dim" | "bold";

/** Options of {@link renderCheckReport}. */
export interface RenderOptions {
  /**
   * Styles text (the CLI passes ANSI color for a terminal, never with NO_COLOR).
   * Default: none.
   */
  paint?: (text: string, style: ReportStyle) => string;
}

type Paint = (text: string, style: ReportStyle) => string;

/** One row: a name, whether it is ready, and its failed checks with where and fix. */
interface Row {
  name: string;
  ready: boolean;
  note: string;
  problems: { detail: string; keyPath: string }[];
}

/**
 * Locates key paths in the manifest (best effort: no line when it cannot be read). Read
 * like the workspace was: never through a symlink, never blocking on a FIFO, 8 MiB.
 */
function locator(ws: Workspace): (keyPath: string) => number | undefined {
  let text = "";
  try {
    text = new TextDecoder().decode(readManifestBytes(ws.manifestPath));
  } catch { /* no lines */ }
  const p = new Problems(MANIFEST_NAME, text);
  return (k) => (text === "" ? undefined : p.locate(k));
}

function toolKeyPath(ws: Workspace, artifactId: string, name: string): string {
  const a = ws.artifacts.get(artifactId);
  if (!a) return `artifacts.${artifactId}`;
  for (const t of [...Object.values(a.agentTools), ...Object.values(a.humanTools)]) {
    if (publishedName(t.name, a.id) === name) return t.keyPath;
  }
  return a.keyPath;
}

function failed(keyPath: string, checks: ReadinessCheck[]): Row["problems"] {
  return checks.filter((c) => !c.ok).map((c) => ({
    detail: `${c.check}: ${c.detail}`,
    keyPath: checkKeyPath(keyPath, c.check),
  }));
}

/** An extension's row, from its report entry (the same readiness the exit code counts). */
function extensionRow(d: ExtensionDecl, e: ExtensionEntry | undefined): Row {
  const problems: Row["problems"] = [];
  if (e?.problem !== undefined) {
    problems.push({ detail: `command: ${e.problem}`, keyPath: `${d.keyPath}.command` });
  }
  const c = e?.confinement;
  if (c?.unavailable !== undefined) {
    problems.push({
      detail: `confinement: unavailable (${c.unavailable}): it would be refused`,
      keyPath: d.keyPath,
    });
  }
  const base = d.remote !== undefined ? "remote: checked when it connects" : "command found";
  const note = problems.length > 0 ? "" : c ? `${base}, ${confinementNote(c)}` : base;
  return { name: d.name, ready: (e?.ready ?? true) && problems.length === 0, note, problems };
}

type ExtensionEntry = NonNullable<SelectionReport["extensions"]>[number];

function rows(ws: Workspace, r: SelectionReport): Row[][] {
  const blocked = new Set(r.lock?.status === "drift" ? r.lock.blocked : []);
  const tools = r.tools.map((t) => {
    const keyPath = toolKeyPath(ws, t.artifactId, t.name);
    const problems = failed(keyPath, t.checks);
    // A tool the drifted lock blocks is refused at its call, whatever its own checks say.
    if (blocked.has(t.name)) problems.push({ detail: lockBlocked(r, t.name), keyPath });
    return {
      name: t.name,
      ready: t.ready && !blocked.has(t.name),
      note: t.confinement ? `${t.protocol}, ${confinementNote(t.confinement)}` : t.protocol,
      problems,
    };
  });
  const sessions = r.sessions.map((s) => {
    const keyPath = ws.artifacts.get(s.artifactId)?.sessions[s.name]?.keyPath ?? "";
    return {
      name: publishedName(s.name, s.artifactId),
      ready: s.ready,
      note: `session, ${confinementNote(s.confinement)}`,
      problems: failed(keyPath, s.checks),
    };
  });
  const exts = r.eval === undefined ? [] : evalExtensions(ws, r.eval);
  const extRows = exts.map((d) => extensionRow(d, r.extensions?.find((e) => e.name === d.name)));
  const hooks = (r.hooks ?? []).map((h) => ({
    name: h.keyPath,
    ready: h.ready,
    note: confinementNote(h.confinement),
    problems: h.ready ? [] : [{
      detail: `confinement: unavailable (${h.confinement.unavailable}): it would be refused`,
      keyPath: h.keyPath,
    }],
  }));
  return [tools, sessions, extRows, hooks];
}

/** `bubblewrap fs=read net=off`, or `host (unconfined)` where an agent can steer it. */
function confinementNote(c: ConfinementInfo): string {
  return c.flag ? `${c.effect} (unconfined)` : c.effect;
}

const HEADINGS = ["TOOL", "SESSION", "EXTENSION", "HOOK"];
/** The row problem of a tool a drifted `toolhost.lock` blocks (its fix is the lock line's). */
const LOCK_BLOCKED = "lock: it differs from what toolhost.lock pins, so a call is refused";
/** The row problem of a tool declared since `toolhost lock` last ran. */
const LOCK_NEW = "lock: it is not in toolhost.lock yet, so a call is refused";

/** Which of the two a blocked tool is: new (its one drift line says so) or changed. */
function lockBlocked(r: SelectionReport, name: string): string {
  const lines = r.lock?.status === "drift" ? r.lock.drift : [];
  const own = lines.filter((l) => l.includes(`tool \`${name}\`: `));
  return own.length > 0 && own.every((l) => l.endsWith(`tool \`${name}\`: not in toolhost.lock`))
    ? LOCK_NEW
    : LOCK_BLOCKED;
}

function section(
  heading: string,
  list: Row[],
  width: number,
  line: (k: string) => number | undefined,
  paint: Paint,
): string[] {
  if (list.length === 0) return [];
  const out = [`  ${paint(heading.padEnd(width), "bold")}  STATUS`];
  const pad = " ".repeat(width + 4);
  for (const row of list) {
    const status = row.ready ? paint("ready", "green") : paint("not ready", "red");
    const note = row.ready && row.note ? `  ${paint(escapeShown(row.note, 80), "dim")}` : "";
    out.push(`  ${escapeShown(row.name, 64).padEnd(width)}  ${status}${note}`);
    for (const p of row.problems) {
      const n = line(p.keyPath);
      const where = `${escapeShown(p.keyPath, 160)} (${MANIFEST_NAME}${n ? `:${n}` : ""})`;
      out.push(`${pad}${escapeShown(p.detail, 400)}`, `${pad}  at ${where}`);
      const fix = fixFor(p.detail);
      if (fix) out.push(`${pad}  fix: ${fix}`);
    }
  }
  return out;
}

/** `: a, b, c` (at most 5 names, then `and N more`) for the tools the lock blocks. */
function blockedNames(blocked: readonly string[]): string {
  if (blocked.length === 0) return "";
  const shown = blocked.slice(0, 5).map((n) => escapeShown(n, 64)).join(", ");
  return `: ${shown}${blocked.length > 5 ? ` and ${blocked.length - 5} more` : ""}`;
}

function lockLines(r: SelectionReport, paint: Paint): string[] {
  if (r.lock === undefined) return [];
  if (r.lock.status === "verified") return [`  toolhost.lock: ${paint("verified", "green")}`];
  const why = r.lock.status === "drift"
    ? `${r.lock.drift.length} difference(s); ${r.lock.blocked.length} tool(s) blocked` +
      blockedNames(r.lock.blocked)
    : escapeShown(r.lock.reason ?? "unverifiable", 200);
  return [
    `  toolhost.lock: ${paint(r.lock.status, "red")} (${why})`,
    "    fix: review the differences (`toolhost lock --check`), then run `toolhost lock`",
  ];
}

/**
 * Render `tools check` reports as text for a person.
 *
 * @example
 * ```ts
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * import { selectTools } from "../registry/selection.ts";
 * import { buildSelectionReport } from "./check_report.ts";
 * import { renderCheckReport } from "./human_report.ts";
 * const ws = await loadWorkspace("examples");
 * const report = buildSelectionReport(ws, selectTools(ws, { eval: "app/review" }), process.env);
 * console.log(renderCheckReport(ws, [report]));
 * ```
 */
export function renderCheckReport(
  ws: Workspace,
  reports: SelectionReport[],
  opts: RenderOptions = {},
): string {
  const paint = opts.paint ?? ((text: string) => text);
  const line = locator(ws);
  const out: string[] = [];
  for (const r of reports) {
    const title = r.eval !== undefined ? `eval ${r.eval}` : `Artifact ${r.artifact}`;
    const state = r.ready ? paint("ready", "green") : paint("not ready", "red");
    out.push(`${paint(escapeShown(title, 200), "bold")} (${r.audience}): ${state}`);
    const groups = rows(ws, r);
    const width = Math.min(40, Math.max(9, ...groups.flat().map((g) => g.name.length)));
    groups.forEach((g, i) => out.push(...section(HEADINGS[i], g, width, line, paint)));
    if (groups.every((g) => g.length === 0)) out.push("  (no tools)");
    out.push(...lockLines(r, paint), "");
  }
  out.push(summaryLine(reports.length, reports.filter((r) => !r.ready).length));
  return `${out.join("\n")}\n`;
}

/** The closing line: "All 3 checked scopes are ready.", "The checked scope is ready.", ... */
function summaryLine(total: number, notReady: number): string {
  const more = " `--json` prints the full report.";
  if (total === 1) {
    return notReady === 0
      ? "The checked scope is ready."
      : `The checked scope is not ready.${more}`;
  }
  return notReady === 0
    ? `All ${total} checked scopes are ready.`
    : `${notReady} of ${total} checked scopes ${notReady === 1 ? "is" : "are"} not ready.${more}`;
}
