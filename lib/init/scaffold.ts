/**
 * `toolhost init KIND NAME`: write the files and the manifest declarations of a working
 * tool or harness, prove the workspace still loads, and roll everything back when it
 * does not. Never overwrites a file.
 *
 * @module
 */

import { type GitignoreOutcome, ignoreStateDir } from "./gitignore.ts";
import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { DeclarationError } from "../errors/errors.ts";
import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
import { MANIFEST_NAME } from "../workspace/manifest_file.ts";
import { checkKindAndName, checkTemplate, type HarnessTemplate, type InitKind } from "./kinds.ts";
import { appendToManifest, createManifest } from "./manifest_edit.ts";
import { type PlannedFile, planScaffold } from "./plan.ts";
import { resolveTarget, type TargetOptions } from "./target.ts";
import { existsError, UndoLog } from "./undo_log.ts";

/** Options of {@linkcode scaffold}. */
export interface ScaffoldOptions extends TargetOptions {
  /** `json-tool`, `plain-tool` or `harness`. */
  kind: string;
  /** NAME: `[a-z0-9][a-z0-9_-]*`, at most 64 characters (60 for a harness, 51 for a browser). */
  name: string;
  /** A harness template: `browser` (headless Chromium). Default: the key-value harness. */
  template?: string;
}

/** What a scaffold created. */
export interface ScaffoldReport {
  /** The kind. */
  kind: InitKind;
  /** The harness template, when one was asked for. */
  template?: HarnessTemplate;
  /** NAME. */
  name: string;
  /** Canonical workspace root. */
  root: string;
  /** The folder Artifact holding the files. */
  artifactId: string;
  /** The agent eval publishing the tools. */
  evalId: string;
  /** Was toolhost.toml created (else appended to)? */
  createdManifest: boolean;
  /** Was the eval declared by this scaffold? */
  declaredEval: boolean;
  /** Created files (workspace-relative) and what each is. */
  files: { path: string; role: string }[];
  /** Published names of the new tools. */
  tools: string[];
  /** A tool to try and arguments for it. */
  example: { tool: string; args: Record<string, unknown> };
  /** What init did to `.gitignore` so the state directory stays out of git. */
  gitignore: GitignoreOutcome;
}

/**
 * The new declarations would make the manifest invalid, so the scaffold was rolled back
 * (nothing changed). Carries the loader's problems; exits 1 like any declaration error.
 *
 * @example
 * ```ts
 * import { DeclarationError } from "../errors/errors.ts";
 * import { ScaffoldRolledBack } from "./scaffold.ts";
 * const e = new ScaffoldRolledBack(new DeclarationError("collides", { keyPath: "artifacts.a" }));
 * console.log(e instanceof DeclarationError); // true
 * ```
 */
export class ScaffoldRolledBack extends DeclarationError {
  /** Wrap the loader's error. */
  constructor(cause: DeclarationError) {
    const [first, ...rest] = cause.problems;
    super(first?.message ?? cause.message, cause.location, rest);
    this.message = cause.message;
  }
}

function refuseExisting(root: string, files: PlannedFile[]): void {
  for (const f of files) {
    try {
      lstatSync(join(root, f.path));
    } catch {
      continue; // absent: fine
    }
    throw existsError(f.path);
  }
}

/**
 * Scaffold a working tool or harness: its program, its `node --test` file and its
 * manifest declarations; then load the workspace to prove it validates, rolling back
 * the append and the new files when it does not ({@linkcode ScaffoldRolledBack}).
 * Throws `InvocationError` for a bad kind, NAME or `--artifact`, and `PathError` when a
 * file to create exists.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { scaffold } from "./scaffold.ts";
 * const repo = mkdtempSync(join(tmpdir(), "my-tools-"));
 * const report = scaffold({ kind: "json-tool", name: "greet", repo });
 * console.log(report.tools); // ["greet_tools"]
 * ```
 */
export function scaffold(o: ScaffoldOptions): ScaffoldReport {
  const template = checkTemplate(checkKindAndName(o.kind, o.name), o.template);
  const kind = checkKindAndName(o.kind, o.name, template);
  const target = resolveTarget(o);
  const plan = planScaffold(kind, o.name, target, template);
  refuseExisting(target.root, plan.files);
  const log = new UndoLog(target.root);
  let root = target.root;
  try {
    log.makeDirs(".");
    root = realpathSync(target.root);
    log.makeDirs(target.artifactPath);
    for (const f of plan.files) log.writeFile(f.path, f.text, f.mode);
    const manifest = join(root, MANIFEST_NAME);
    log.recordManifest(
      plan.newManifest !== undefined
        ? createManifest(manifest, plan.newManifest)
        : appendToManifest(manifest, plan.appended ?? ""),
    );
    loadWorkspaceSync(root);
  } catch (e) {
    log.rollback();
    throw e instanceof DeclarationError ? new ScaffoldRolledBack(e) : e;
  }
  // After the workspace validated: a scaffold that was rolled back leaves .gitignore alone.
  const gitignore = ignoreStateDir(root);
  return {
    kind,
    ...(template === undefined ? {} : { template }),
    name: o.name,
    root,
    gitignore,
    artifactId: target.artifactId,
    evalId: target.evalId,
    createdManifest: !target.manifestExists,
    declaredEval: target.declareEval,
    files: plan.files.map((f) => ({ path: f.path, role: f.role })),
    tools: plan.tools,
    example: plan.example,
  };
}
