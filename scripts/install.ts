/**
 * `deno task install [--prefix DIR]`: put a working `toolhost` command on PATH from a clone,
 * on a machine that has only Node.js (run it as `npx -y deno@2.9.6 task install`).
 *
 * It installs the Node single-executable build (`deno task build:sea`, reused when its bundle
 * is unchanged) as ONE file, `DIR/bin/toolhost` (default DIR: `~/.local`, so
 * `~/.local/bin/toolhost`). Why the single binary rather than the npm build: it starts about
 * twice as fast (its CLI bundle carries a V8 code cache; `toolhost --version` 0.8–1.3 s against
 * 1.5–1.8 s for `node dist/npm/bin/toolhost.js` on a loaded 2-core machine), it needs no
 * `node_modules` or npm registry at install time, and it keeps working when the clone is
 * deleted or another Node.js is first on PATH.
 *
 * The copy is written next to the target and renamed over it, so installing again is safe
 * (also while an older `toolhost` runs). `--uninstall` removes `DIR/bin/toolhost` (only a
 * regular file, never what a symlink points to). A hint is printed when `DIR/bin` is not on
 * PATH.
 *
 * @module
 */

import { execFileSync } from "node:child_process";
import { copyFileSync, lstatSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import process from "node:process";
import { buildSea } from "./build_sea.ts";

/** Options of {@linkcode install} and {@linkcode uninstall}. */
export interface InstallOptions {
  /** The prefix: the command goes to `PREFIX/bin/toolhost`. Default `~/.local`. */
  prefix?: string;
  /** Progress lines. Default: none. */
  log?: (line: string) => void;
}

/** The default prefix, `~/.local`. */
export function defaultPrefix(): string {
  return join(homedir(), ".local");
}

/** The installed command's path under `prefix`. */
export function commandPath(prefix: string): string {
  return join(resolve(prefix), "bin", process.platform === "win32" ? "toolhost.exe" : "toolhost");
}

/**
 * Build (or reuse) the single binary and install it as `PREFIX/bin/toolhost`; returns the
 * installed path after running its `--version`.
 *
 * @example
 * ```ts
 * import { install } from "./install.ts";
 * const path = await install({ prefix: "/tmp/toolhost-prefix", log: console.log });
 * console.log(path); // /tmp/toolhost-prefix/bin/toolhost
 * ```
 */
export async function install(options: InstallOptions = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const target = commandPath(options.prefix ?? defaultPrefix());
  const { binary } = await buildSea({ log: (l) => log(`build:sea: ${l}`) });
  mkdirSync(resolve(target, ".."), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  try {
    copyFileSync(binary, partial);
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  const version = execFileSync(target, ["--version"], { encoding: "utf8" }).trim();
  log(`installed toolhost ${version} at ${target}`);
  return target;
}

/**
 * Remove `PREFIX/bin/toolhost` when it is a regular file; returns whether one was removed.
 *
 * @example
 * ```ts
 * import { uninstall } from "./install.ts";
 * console.log(uninstall({ prefix: "/tmp/toolhost-prefix" })); // true or false
 * ```
 */
export function uninstall(options: InstallOptions = {}): boolean {
  const target = commandPath(options.prefix ?? defaultPrefix());
  let isFile = false;
  try {
    isFile = lstatSync(target).isFile();
  } catch {
    return false;
  }
  if (!isFile) {
    throw new Error(`${target} is not a regular file; remove it yourself if it is toolhost`);
  }
  rmSync(target);
  options.log?.(`removed ${target}`);
  return true;
}

/** Whether `dir` is one of PATH's entries. */
export function onPath(dir: string, path = process.env.PATH ?? ""): boolean {
  return path.split(delimiter).some((p) => p !== "" && resolve(p) === resolve(dir));
}

/**
 * `--prefix DIR` / `--prefix=DIR` from argv, or undefined. An empty DIR (`--prefix "$UNSET"`)
 * is refused: resolved, it would be the current folder, the clone itself.
 */
export function prefixArg(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i] === "--prefix"
      ? argv[i + 1]
      : argv[i].startsWith("--prefix=")
      ? argv[i].slice("--prefix=".length)
      : null;
    if (value === null) continue;
    if (value === undefined || value === "") {
      throw new Error("--prefix needs a folder: --prefix DIR (it was empty or missing)");
    }
    return value;
  }
  return undefined;
}

/**
 * The usage error for arguments other than `--prefix DIR` / `--prefix=DIR` (and the
 * task's own `--uninstall`), naming them; undefined when there are none.
 *
 * @example
 * ```ts
 * import { usageError } from "./install.ts";
 * usageError(["--prefx", "/opt"]); // "unknown argument `--prefx`, `/opt`; usage: ..."
 * ```
 */
export function usageError(argv: string[]): string | undefined {
  const unknown = argv.filter((a, i) =>
    !["--prefix", "--uninstall"].includes(a) && !a.startsWith("--prefix=") &&
    argv[i - 1] !== "--prefix"
  );
  if (unknown.length === 0) return undefined;
  return `unknown argument${unknown.length > 1 ? "s" : ""} ` +
    `${unknown.map((a) => `\`${a}\``).join(", ")}; usage: deno task install [--prefix DIR] | ` +
    "deno task uninstall [--prefix DIR]";
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  let prefix: string | undefined;
  try {
    const usage = usageError(argv);
    if (usage !== undefined) throw new Error(usage);
    prefix = prefixArg(argv);
  } catch (e) {
    console.error(`install: ${(e as Error).message}`);
    process.exit(2);
  }
  try {
    const log = (l: string) => console.error(l);
    if (argv.includes("--uninstall")) {
      if (!uninstall({ prefix, log })) {
        console.error(`nothing to remove: ${commandPath(prefix ?? defaultPrefix())} is absent`);
      }
    } else {
      const path = await install({ prefix, log });
      const bin = resolve(path, "..");
      if (!onPath(bin)) {
        console.error(
          `note: ${bin} is not on your PATH; add it, e.g.\n  export PATH="${bin}:$PATH"`,
        );
      }
    }
  } catch (e) {
    console.error(`install: ${(e as Error).message}`);
    process.exit(1);
  }
}
