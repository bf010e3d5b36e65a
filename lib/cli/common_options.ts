/**
 * Options every command accepts, and the helpers that turn them into a workspace.
 *
 * @module
 */

import { join } from "node:path";
import type { Command } from "commander";
import { InvocationError } from "../errors/errors.ts";
import { loadWorkspace } from "../workspace/load_workspace.ts";
import type { Workspace } from "../workspace/types.ts";

/** `--repo`, `--state-dir`, `--json`. */
export interface CommonOptions {
  /** Workspace root. */
  repo?: string;
  /** State directory. */
  stateDir?: string;
  /** JSON output. */
  json?: boolean;
}

/**
 * Add `--repo` and `--state-dir` to a command.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { withCommon } from "./common_options.ts";
 * withCommon(new Command("x"));
 * ```
 */
export function withCommon(cmd: Command): Command {
  return cmd
    .option(
      "--repo <dir>",
      "workspace root (default: nearest folder with toolhost.toml)",
      nonEmptyFolder("--repo"),
    )
    .option(
      "--state-dir <dir>",
      "state directory (default: <workspace>/.toolhost/state)",
      nonEmptyFolder("--state-dir"),
    );
}

/**
 * The parser of a folder option that refuses an empty value: `--state-dir "$UNSET"` would
 * otherwise resolve to the current folder (made private, filled with `calls/`, `artifacts/`),
 * and `--repo ""` would quietly mean "search from here".
 *
 * @example
 * ```ts
 * import { nonEmptyFolder } from "./common_options.ts";
 * nonEmptyFolder("--repo")("examples"); // "examples"
 * ```
 */
export function nonEmptyFolder(flag: string): (value: string) => string {
  return (value) => {
    if (value.trim() === "") {
      throw new InvocationError(
        `${flag} was given an empty folder name (an unset variable?): pass a folder, ` +
          `e.g. ${flag} ${
            flag === "--repo" ? "my-tools" : ".toolhost/state"
          }, or leave ${flag} out`,
      );
    }
    return value;
  };
}

/**
 * Load the workspace named by the common options.
 *
 * @example
 * ```ts
 * import { openWorkspace } from "./common_options.ts";
 * const { ws, stateDir } = await openWorkspace({ repo: "examples" });
 * ```
 */
export async function openWorkspace(
  o: CommonOptions,
): Promise<{ ws: Workspace; stateDir: string }> {
  const ws = await loadWorkspace(o.repo, { rootFlag: "--repo" });
  return { ws, stateDir: o.stateDir ?? join(ws.root, ".toolhost", "state") };
}

/**
 * The error for a command run without `--eval`: it names the evals of the workspace the
 * command would use (the agent evals when `agentOnly`), so the fix can be copied. When no
 * workspace loads, that is the problem to fix first: its error (no `toolhost.toml`, or the
 * manifest's own errors) is thrown instead, as every command does.
 *
 * @example
 * ```ts
 * import { missingEvalError } from "./common_options.ts";
 * const e = await missingEvalError({ repo: "examples" }, true);
 * e.message; // "--eval is required: name one of this workspace's agent evals, e.g. --eval app/review; ..."
 * ```
 */
export async function missingEvalError(
  o: CommonOptions,
  agentOnly: boolean,
): Promise<InvocationError> {
  // A missing or broken manifest is named as such, not hidden behind a missing --eval.
  const ws = await loadWorkspace(o.repo, { rootFlag: "--repo" });
  const ids = [...ws.evals.values()]
    .filter((ev) => !agentOnly || ev.audience === "agent")
    .map((ev) => ev.id);
  const kind = agentOnly ? "agent evals" : "evals";
  if (ids.length === 0) {
    return new InvocationError(
      `--eval is required, but this workspace declares no ${kind}: add one to toolhost.toml ` +
        '(`[artifacts.ID.evals.NAME]` with `audience = "agent"`)',
    );
  }
  return new InvocationError(
    `--eval is required: name one of this workspace's ${kind}, e.g. --eval ${ids[0]}; ` +
      `${kind}: ${ids.join(", ")}`,
  );
}

/**
 * Refuse a human eval where a command runs only agent evals (`tools call`, `serve`), in
 * CLI terms: the agent evals to use instead, and how a human tool is run from the CLI.
 * An unknown eval is left to the selection's own error.
 *
 * @example
 * ```ts
 * import { openWorkspace, requireAgentEval } from "./common_options.ts";
 * const { ws } = await openWorkspace({ repo: "examples" });
 * requireAgentEval(ws, "app/review", "serve"); // passes
 * ```
 */
export function requireAgentEval(ws: Workspace, evalId: string, command: string): void {
  const ev = ws.evals.get(evalId);
  if (ev === undefined || ev.audience === "agent") return;
  const agents = [...ws.evals.values()].filter((e) => e.audience === "agent").map((e) => e.id);
  throw new InvocationError(
    `\`${evalId}\` is a ${ev.audience} eval, and \`${command}\` runs agent evals only` +
      ` (this workspace's: ${agents.join(", ") || "none"}); run a human tool with ` +
      `\`toolhost tools check --execute --eval ${evalId} --tool TOOL\``,
  );
}

/**
 * Where `raw` stops being JSON, by position only (the parser's message can quote the
 * text, which may hold a value): ` It stops being JSON at character N of M.` when the
 * parser names a position, and the likely cause when no double quote is left.
 */
function whereJsonStops(raw: string, e: unknown): string {
  const at = /at position (\d+)/.exec(e instanceof Error ? e.message : "");
  let s = "";
  if (at !== null) {
    const n = Math.min(Number(at[1]) + 1, raw.length);
    s += ` It stops being JSON at character ${n} of ${raw.length}.`;
  }
  if (!raw.includes('"') && /[{:]/.test(raw)) {
    s +=
      " It has no double quotes left: the shell removed them; put the whole JSON in single quotes.";
  }
  return s;
}

/**
 * Parse `--args JSON` into an object, or throw an invocation error (value-free).
 *
 * @example
 * ```ts
 * import { parseArgsOption } from "./common_options.ts";
 * parseArgsOption('{"path":"README.md"}'); // { path: "README.md" }
 * ```
 */
export function parseArgsOption(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw new InvocationError(
      `--args must be valid JSON (a JSON object), quoted for the shell: --args '{"key":"value"}'.` +
        whereJsonStops(raw, e),
    );
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new InvocationError("--args must be a JSON object");
  }
  return v as Record<string, unknown>;
}
