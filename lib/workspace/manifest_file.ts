/**
 * Find and read `toolhost.toml`: `--repo DIR`, else the nearest ancestor of the current
 * directory that holds one. The file is read with an 8 MiB bound and parsed by smol-toml.
 *
 * @module
 */

import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { DeclarationError, InvocationError } from "../errors/errors.ts";
import { MANIFEST_NAME, readManifestBytes } from "./manifest_bytes.ts";

export { MANIFEST_NAME };

/**
 * Does `dir` hold an entry named toolhost.toml, of any kind? A symlink there (even a
 * dangling one) marks the workspace too, so that reading it is refused with its own
 * error instead of the search going on to an ancestor's manifest.
 *
 * @example
 * ```ts
 * import { holdsManifest } from "./manifest_file.ts";
 * holdsManifest("examples"); // true, run from the repository root
 * ```
 */
export function holdsManifest(dir: string): boolean {
  try {
    lstatSync(join(dir, MANIFEST_NAME));
    return true;
  } catch {
    return false;
  }
}

/** How a newcomer starts a workspace, for the errors that find none. */
function startHint(repoFlag: string): string {
  return `start a workspace with \`toolhost init json-tool NAME${repoFlag}\``;
}

/** The error for a `--repo` that names a file: the manifest itself, or another file. */
function notAFolder(repo: string, dir: string, flag: string): string {
  return basename(dir) === MANIFEST_NAME
    ? `${flag} ${repo}: that is the manifest; pass the folder that holds it: ${flag} ${
      dirname(repo)
    }`
    : `${flag} ${repo}: not a folder; pass the folder that holds ${MANIFEST_NAME}`;
}

/**
 * Find the workspace root: `repo` when given (it must hold toolhost.toml), else the
 * nearest ancestor of `cwd` holding one. Returns the canonical root. Errors name the
 * folder as `flag` names it: `--repo` for the CLI, `root` for `loadWorkspace(root)`.
 *
 * @example
 * ```ts
 * import { findWorkspaceRoot } from "./manifest_file.ts";
 * const root = findWorkspaceRoot("examples");
 * ```
 */
export function findWorkspaceRoot(
  repo?: string,
  cwd: string = process.cwd(),
  flag = "--repo",
): string {
  if (repo !== undefined) {
    const dir = resolve(cwd, repo);
    if (!existsSync(dir)) throw new InvocationError(`${flag} ${repo}: no such folder`);
    if (!statSync(dir).isDirectory()) throw new InvocationError(notAFolder(repo, dir, flag));
    if (!holdsManifest(dir)) {
      const outer = enclosingWorkspace(dir);
      const fix = outer === undefined
        ? startHint(` --repo ${repo}`)
        : `it is inside the workspace at ${outer}: pass ${flag} ${
          shellQuoted(isAbsolute(repo) ? outer : relative(cwd, outer) || ".")
        }, or leave ${flag} out when running from inside it`;
      throw new InvocationError(`${flag} ${repo}: no ${MANIFEST_NAME} in that folder; ${fix}`);
    }
    return realpathSync(dir);
  }
  let dir = resolve(cwd);
  for (;;) {
    if (holdsManifest(dir)) return realpathSync(dir);
    const up = dirname(dir);
    if (up === dir) {
      const below = workspacesBelow(cwd);
      const pass = below.length > 0
        ? `pass ${flag} DIR (here: ${below.map((d) => `${flag} ${d}`).join(", ")})`
        : `pass ${flag} DIR`;
      throw new InvocationError(
        `no ${MANIFEST_NAME} found in the current folder or its ancestors; ${pass}, ` +
          `or ${startHint("")} here`,
      );
    }
    dir = up;
  }
}

/**
 * The nearest strict ancestor of `dir` that {@link holdsManifest}, if any: where someone
 * who passed a subfolder of their workspace (its `tools/`, its `src/`) meant to point.
 */
function enclosingWorkspace(dir: string): string | undefined {
  for (let up = dirname(dir); up !== dir; dir = up, up = dirname(up)) {
    if (holdsManifest(up)) return up;
  }
  return undefined;
}

/** `s` as one shell word: bare when it is safe, else single-quoted. */
function shellQuoted(s: string): string {
  return /^[\w./@%+=:,-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The immediate subfolders of `cwd` holding a manifest (at most 3, in name order, quoted
 * for a shell; at most 1000 entries read): where someone one folder too high (a clone's
 * `examples/`, the parent of their workspace) most likely meant to be.
 */
function workspacesBelow(cwd: string): string[] {
  let names: string[];
  try {
    names = readdirSync(cwd, { withFileTypes: true }).slice(0, 1000)
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  const isManifest = (n: string) => {
    try {
      return lstatSync(join(cwd, n, MANIFEST_NAME)).isFile();
    } catch {
      return false;
    }
  };
  return names.filter(isManifest).slice(0, 3).map(shellQuoted);
}

/**
 * Read and parse the manifest of a workspace root: a regular file of at most 8 MiB,
 * never reached through a symlink (a {@link DeclarationError} naming the file).
 *
 * @example
 * ```ts
 * import { readManifest } from "./manifest_file.ts";
 * const { data, text } = readManifest("examples"); // run from the repository root
 * ```
 */
export function readManifest(
  root: string,
): { path: string; text: string; data: Record<string, unknown> } {
  const path = join(root, MANIFEST_NAME);
  const buf = readManifestBytes(path);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    throw new DeclarationError("is not valid UTF-8", { file: MANIFEST_NAME });
  }
  try {
    return { path, text, data: parse(text) as Record<string, unknown> };
  } catch (e) {
    if (e instanceof TomlError) {
      throw new DeclarationError(tomlErrorMessage(e), { file: MANIFEST_NAME, line: e.line });
    }
    throw e;
  }
}

/**
 * smol-toml's first line without its "Invalid TOML document:" prefix, with the column
 * (the line goes with the error's location) and, for a redefinition, what that means in
 * a manifest. The excerpt smol-toml appends is dropped: it would copy raw file text.
 */
function tomlErrorMessage(e: TomlError): string {
  const what = e.message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "");
  const hint = TOML_HINTS.find(([re]) => re.test(what))?.[1];
  return `invalid TOML at column ${e.column}: ${what}${hint ? ` (${hint})` : ""}`;
}

/** What smol-toml's terse messages most often mean in a manifest. */
const TOML_HINTS: readonly (readonly [RegExp, string])[] = [
  [/redefine an already defined/, "a key or a [table] appears twice: keep one"],
  [/^invalid value$/, 'a value is missing, or text lacks its double quotes, e.g. path = "tools"'],
  [
    /^illegal character in key$/,
    "keys are letters, digits, _ and - unless quoted; a [table] header needs its closing ]",
  ],
  [/control characters are not allowed in strings/, "is a string's closing \" missing?"],
];
