/**
 * Running git so that no configuration can make it run a program. The git tools only
 * read a repository (`rev-parse`, `config --list`, `status`, `diff`), yet git may start
 * programs named by configuration while it does: filter drivers (`filter.<driver>.clean`,
 * `.smudge`, `.process`) to hash work-tree files, diff drivers (`diff.external`,
 * `diff.<driver>.command`, `.textconv`), `core.fsmonitor`, hooks (`post-index-change`,
 * through `core.hooksPath`), the transports of a lazy fetch in a partial clone
 * (`remote.<name>.url = ext::…`, `uploadpack`, `core.sshCommand`, credential helpers),
 * `git status` in submodules (with their own configuration), and a pager. Three layers:
 *
 * 1. No configuration but the repository's own: `GIT_CONFIG_NOSYSTEM=1`,
 *    `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_ATTR_NOSYSTEM=1`, `core.attributesFile=/dev/null`,
 *    and an environment built from PATH and HOME only (no `GIT_*` from the author's).
 * 2. Fixed keys overridden on the command line, which beats every configuration file:
 *    `core.fsmonitor=false`, `core.hooksPath=/dev/null`, `diff.external=`,
 *    `core.pager=cat`, `core.sshCommand=`, `core.askPass=`, `credential.helper=`,
 *    `protocol.allow=never`, `submodule.recurse=false`, and `safe.bareRepository=explicit`
 *    (a folder holding `HEAD`, `objects/`, `refs/` and a `config` is not taken for a
 *    repository). Every transport is refused by `GIT_ALLOW_PROTOCOL=` (empty: the
 *    environment beats a repository's `protocol.<name>.allow`) and lazy fetches by
 *    `GIT_NO_LAZY_FETCH=1`; `--no-ext-diff`, `--no-textconv` and `--ignore-submodules=all`
 *    are passed where they apply.
 * 3. Keys with a driver-chosen middle part cannot be overridden by name, so the
 *    repository's configuration is listed first (`git config --list --no-includes`) and
 *    the call refused when it defines any of them: `filter.<driver>.clean|smudge|process`,
 *    `diff.<driver>.command|textconv`, config-based hooks `hook.<name>.*`, and includes
 *    (`include.*`, `includeIf.*`), whose files the listing does not open.
 *
 * Not consulted by these commands, so left alone: editors, `gpg.program`, merge drivers,
 * `alias.*`, mergetool/difftool, `sendemail.*`, `web.browser`.
 *
 * @module
 */

import { ToolhostError } from "../errors/errors.ts";

/** Command-line configuration every git run gets (layer 2). */
export const GIT_SAFE_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.sshCommand=",
  "core.askPass=",
  "core.attributesFile=/dev/null",
  "credential.helper=",
  "protocol.allow=never",
  "safe.bareRepository=explicit",
  "submodule.recurse=false",
  "diff.external=",
  "core.quotepath=false",
  "core.untrackedCache=false",
  "color.ui=false",
].flatMap((kv) => ["-c", kv]);

/**
 * The complete environment of a git run: PATH and HOME from the author's environment,
 * then the settings of layers 1 and 2.
 *
 * @example
 * ```ts
 * import { gitSafeEnv } from "./git_safety.ts";
 * gitSafeEnv({ PATH: "/usr/bin", GIT_DIR: "/x" }, "/tmp/t").GIT_DIR; // undefined
 * ```
 */
export function gitSafeEnv(
  base: Readonly<Record<string, string>>,
  tmpDir: string,
): Record<string, string> {
  return {
    ...(base.PATH ? { PATH: base.PATH } : {}),
    ...(base.HOME ? { HOME: base.HOME } : {}),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_ALLOW_PROTOCOL: "",
    GIT_NO_LAZY_FETCH: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    LC_ALL: "C",
    TMPDIR: tmpDir,
  };
}

/**
 * The family of a configuration key that would make git run a program (or read
 * configuration the listing did not show) and cannot be overridden by name, or null.
 * Keys are as `git config --list` prints them: section and name lower-case, the middle
 * part as written.
 *
 * @example
 * ```ts
 * import { unsafeConfigFamily } from "./git_safety.ts";
 * unsafeConfigFamily("filter.lfs.clean"); // "filter.<driver>.clean"
 * unsafeConfigFamily("diff.ts.xfuncname"); // null
 * ```
 */
export function unsafeConfigFamily(key: string): string | null {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first <= 0) return null;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  const middle = last > first;
  if (section === "include") return "include.path";
  if (section === "includeif") return "includeIf.<condition>.path";
  if (section === "hook") return "hook.<name>.*";
  if (section === "filter" && middle && ["clean", "smudge", "process"].includes(name)) {
    return `filter.<driver>.${name}`;
  }
  if (section === "diff" && middle && (name === "command" || name === "textconv")) {
    return `diff.<driver>.${name}`;
  }
  return null;
}

/**
 * The keys of `git config --list -z` output (`key\nvalue\0` or `key\0` per entry).
 *
 * @example
 * ```ts
 * import { configKeys } from "./git_safety.ts";
 * configKeys("core.bare\nfalse\0filter.x.clean\ncat\0"); // ["core.bare", "filter.x.clean"]
 * ```
 */
export function configKeys(listing: string): string[] {
  const keys: string[] = [];
  for (const entry of listing.split("\0")) {
    if (entry === "") continue;
    const nl = entry.indexOf("\n");
    keys.push(nl < 0 ? entry : entry.slice(0, nl));
  }
  return keys;
}

/**
 * The git tools refused a repository whose configuration could make git run a program.
 *
 * @example
 * ```ts
 * import { UnsafeGitConfigError } from "./git_safety.ts";
 * const e = new UnsafeGitConfigError("`app`: the repository sets filter.<driver>.clean.");
 * console.log(e.code); // "TOOL_ERROR"
 * ```
 */
export class UnsafeGitConfigError extends ToolhostError {
  /** Create the refusal. */
  constructor(message: string) {
    super("TOOL_ERROR", message);
  }
}

/**
 * The entries {@link GIT_SAFE_CONFIG} adds to every `git config --list -z` listing (git
 * lists command-line settings too, last, with section and key names in lower case): a
 * listing without all of them was not read whole.
 */
const SAFE_CONFIG_ENTRIES: readonly string[] = GIT_SAFE_CONFIG
  .filter((_, i) => i % 2 === 1)
  .map((kv) => {
    const eq = kv.indexOf("=");
    return `${kv.slice(0, eq).toLowerCase()}\n${kv.slice(eq + 1)}`;
  });

/**
 * A listing as `git config --list -z` prints it with {@link GIT_SAFE_CONFIG} on the
 * command line, after `entries` (each `key\nvalue`): for tests and examples.
 *
 * @example
 * ```ts
 * import { checkConfigListing, safeConfigListing } from "./git_safety.ts";
 * checkConfigListing(safeConfigListing(["core.bare\nfalse"]), false, "app"); // fine
 * ```
 */
export function safeConfigListing(entries: readonly string[] = []): string {
  return [...entries, ...SAFE_CONFIG_ENTRIES].map((e) => `${e}\0`).join("");
}

/**
 * Throw unless a complete `git config --list -z --no-includes` listing is free of keys
 * that {@link unsafeConfigFamily} names. `truncated` listings are refused: what was not
 * seen cannot be trusted. So is a listing that lacks any setting of
 * {@link GIT_SAFE_CONFIG}, which git lists whatever the repository holds: an empty or
 * cut listing (output lost or cut short on its way) never passes for a safe one.
 * Messages name key families, never a driver name or value.
 *
 * @throws {UnsafeGitConfigError}
 * @example
 * ```ts
 * import { checkConfigListing, safeConfigListing } from "./git_safety.ts";
 * checkConfigListing(safeConfigListing(["core.bare\nfalse"]), false, "app"); // fine
 * // checkConfigListing("", false, "app"); // throws: nothing was listed
 * // checkConfigListing(safeConfigListing(["filter.x.clean\ncat"]), false, "app"); // throws
 * ```
 */
export function checkConfigListing(listing: string, truncated: boolean, artifactId: string): void {
  if (truncated) {
    throw new UnsafeGitConfigError(
      `The git configuration of the repository holding \`${artifactId}\` is too large to ` +
        "check; the git tools refused to run.",
    );
  }
  const listed = new Set(listing.split("\0"));
  if (SAFE_CONFIG_ENTRIES.some((e) => !listed.has(e))) {
    throw new UnsafeGitConfigError(
      `The git configuration of the repository holding \`${artifactId}\` could not be read ` +
        "whole (the settings toolhost passes git were not all listed); the git tools refused " +
        "to run. Try again; if it persists, check that `git config --list` works there.",
    );
  }
  const families = new Set<string>();
  for (const key of configKeys(listing)) {
    const family = unsafeConfigFamily(key);
    if (family !== null) families.add(family);
  }
  if (families.size === 0) return;
  throw new UnsafeGitConfigError(
    `The git configuration of the repository holding \`${artifactId}\` sets ` +
      `${[...families].sort().map((f) => `\`${f}\``).join(", ")}, which can make git run ` +
      "programs; the git tools refuse such a repository. Remove those settings " +
      "(e.g. from .git/config) to use them.",
  );
}
