/**
 * The two browser harnesses the parity and cleanup tests run through one table:
 * examples/browser (TypeScript with harness-kit, run by Deno) and the scaffold of
 * `toolhost init harness web --template browser` (Node.js, no dependency). Each is set up
 * in a temporary folder, confined as it is declared.
 *
 * @module
 */

import { join } from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { exampleCopy, toolEnv } from "./_helpers.ts";

/** One browser harness under test. */
export interface Subject {
  /** `example` or `scaffold`. */
  label: string;
  /** Its workspace root. */
  root: string;
  /** The eval to open. */
  evalId: string;
  /** The Artifact id its tools are published under. */
  artifact: string;
  /** The session's name. */
  session: string;
  /** Published name of a bound tool (`open_url`, ...). */
  tool(action: string): string;
  /** A folder inside the eval's scope for test pages. */
  pages: string;
  /** Whether its session is declared confined. */
  confined: boolean;
}

/** The six bound actions, in declaration order. */
export const ACTIONS = ["open_url", "click", "type_text", "snapshot", "screenshot", "console_logs"];

/** The subject labels, for per-subject test names. */
export const LABELS = ["example", "scaffold"] as const;

/**
 * Set up subject `label` under `dir` (a fresh folder).
 *
 * @example
 * ```ts ignore
 * const s = await makeSubject("scaffold", "/tmp/x");
 * ```
 */
export async function makeSubject(label: (typeof LABELS)[number], dir: string): Promise<Subject> {
  if (label === "example") {
    const root = exampleCopy(dir);
    return {
      label,
      root,
      evalId: "site/review",
      artifact: "site",
      session: "browser",
      tool: (a) => `${a}_site`,
      pages: join(root, "site/pages"),
      confined: true,
    };
  }
  const r = await runCapture(["init", "harness", "web", "--template", "browser", "--repo", dir]);
  if (r.code !== 0) throw new Error(`init failed: ${r.err}`);
  return {
    label,
    root: dir,
    evalId: "tools/agent",
    artifact: "tools",
    session: "web",
    tool: (a) => `web_${a}_tools`,
    pages: join(dir, "tools/pages"),
    confined: true,
  };
}

/**
 * Open the subject's eval with `stateDir` (extra variables in `env`).
 *
 * @example
 * ```ts ignore
 * const reg = await openSubject(s, "/tmp/state");
 * ```
 */
export async function openSubject(
  s: Subject,
  stateDir: string,
  env: Record<string, string> = {},
): Promise<Registry> {
  return await Registry.open(await loadWorkspace(s.root), s.evalId, {
    stateDir,
    env: { ...toolEnv(), ...env },
  });
}
