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
  return `${lines.join("\n")}\n`;
}
