/**
 * The text `toolhost init` prints: what it created and the next steps.
 *
 * @module
 */

import { MANIFEST_NAME } from "../workspace/manifest_file.ts";
import type { ScaffoldReport } from "./scaffold.ts";

/**
 * Quote `s` for a POSIX shell when it needs it.
 *
 * @example
 * ```ts
 * import { shellQuote } from "./next_steps.ts";
 * shellQuote("my tools"); // "'my tools'"
 * ```
 */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:,@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

function manifestLine(r: ScaffoldReport): string {
  if (r.createdManifest) {
    return `new: Artifact \`${r.artifactId}\`, eval \`${r.evalId}\` and the declarations`;
  }
  return r.declaredEval
    ? `appended: eval \`${r.evalId}\` and the declarations`
    : "appended: the declarations";
}

/** Options of {@linkcode formatScaffoldReport}. */
export interface ReportOptions {
  /** The workspace folder relative to the current directory (`""` when it is the current one). */
  cd?: string;
  /**
   * Why this host cannot confine (lib/sandbox `sandboxSupport().reason`), when it cannot:
   * the scaffold declares `sandbox = "read"`, so its tools would be refused here.
   */
  unconfinable?: string;
  /**
   * The workspace has a `toolhost.lock`: the new declarations are not in it, so every
   * command refuses them (`LOCK_MISMATCH`) until it is written again.
   */
  locked?: boolean;
}

/**
 * What to do when the scaffold's confined declarations would be refused on this host.
 *
 * @example
 * ```ts
 * import { unconfinableNote } from "./next_steps.ts";
 * unconfinableNote("bubblewrap (`bwrap`) was not found").length > 0; // true
 * ```
 */
export function unconfinableNote(reason: string): string[] {
  return [
    "",
    'Not runnable here yet: the declarations say `sandbox = "read"` (confined with',
    "bubblewrap), and this machine cannot confine:",
    `  ${reason}.`,
    "toolhost refuses confined tools it cannot confine; it never runs them unconfined.",
    "Either make confinement work as the reason says (then `toolhost tools check` shows",
    "`bubblewrap fs=read net=off`), or, to run them unconfined with your own rights, delete",
    'the `sandbox = "read"` lines from toolhost.toml.',
  ];
}

/**
 * Format a scaffold report for a terminal.
 *
 * @example
 * ```ts
 * import { formatScaffoldReport } from "./next_steps.ts";
 * // io.out(formatScaffoldReport(scaffold({ kind: "json-tool", name: "greet" })));
 * ```
 */
export function formatScaffoldReport(r: ScaffoldReport, o: ReportOptions = {}): string {
  const rows: [string, string][] = [
    [MANIFEST_NAME, manifestLine(r)],
    ...r.files.map((f): [string, string] => [f.path, f.role]),
    ...(r.gitignore === "created" || r.gitignore === "added"
      ? [
        [".gitignore", `${r.gitignore}: .toolhost/ (toolhost's state directory)`] as [
          string,
          string,
        ],
      ]
      : []),
  ];
  const width = Math.max(...rows.map(([p]) => p.length)) + 2;
  const test = shellQuote(r.files[1].path);
  const args = shellQuote(JSON.stringify(r.example.args));
  const lines = [
    `Created ${
      r.template === undefined ? "" : `${r.template} `
    }${r.kind} \`${r.name}\` in Artifact \`${r.artifactId}\`:`,
    ...rows.map(([p, what]) => `  ${p.padEnd(width)}${what}`),
    `Agents see ${r.tools.join(", ")} in eval ${r.evalId}.`,
    "",
    "Next steps:",
    ...(o.cd ? [`  cd ${shellQuote(o.cd)}`] : []),
    ...(o.locked
      ? [
        "  # toolhost.lock refuses what it does not pin: review the change, then add it",
        "  toolhost lock --check",
        "  toolhost lock",
      ]
      : []),
    "  # validate the declarations",
    `  toolhost tools check ${r.evalId}`,
    "  # run the test; with TOOLHOST_BIN set it also runs the tool through toolhost",
    `  node --test ${test}`,
    `  TOOLHOST_BIN="$(command -v toolhost)" node --test ${test}`,
    "  # call it as an agent would, then serve the eval to an MCP client",
    `  toolhost tools call ${r.example.tool} --eval ${r.evalId} --args ${args}`,
    `  toolhost serve --eval ${r.evalId}`,
  ];
  if (r.template === "browser") {
    lines.push(
      "The browser needs Chromium (Debian: apt-get install chromium; elsewhere set CHROMIUM);",
      "the test SKIPs, saying so, without it.",
    );
  }
  if (r.kind === "harness") {
    lines.push(
      "Each `tools call` runs in its own session (started, then stopped and cleaned);",
      "under `toolhost serve` the bound tools share one session while the server runs.",
    );
  }
  lines.push(`Edit ${r.files[0].path}, then run its test again.`);
  if (o.unconfinable !== undefined) lines.push(...unconfinableNote(o.unconfinable));
  return `${lines.join("\n")}\n`;
}
