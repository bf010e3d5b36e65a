/**
 * Pinning the program a command runs: the file a PATH lookup (or a workspace-relative
 * path) resolves to, by its path and the SHA-256 of its bytes, and — for a `#!` script —
 * its interpreter, and the program `/usr/bin/env X` (also `env -S "X …"`) resolves `X`
 * to on PATH — and so on down the chain when that is a script too (`interpreter 2`, …),
 * a relative interpreter taken from the command's working directory as the kernel does.
 * A different file at that name later (a swapped file, an earlier PATH entry, a new
 * interpreter) gives a different pin.
 *
 * Hashes are memoized in-process by file identity (device, inode, size, mtime, ctime),
 * so a long-lived server hashes a large interpreter once.
 *
 * @module
 */

import { accessSync, constants, existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { resolveProgram } from "../workspace/program_path.ts";
import { envRun } from "./env_split.ts";
import { hashRegularFile } from "./hash_file.ts";
import { readHead } from "./shebang_head.ts";
import { operandSteps } from "./operand_pin.ts";
import { identityOf } from "./pin_snapshot.ts";

/** One pinned program: where it was found and its bytes' SHA-256. */
export interface ProgramPin {
  /** Workspace-relative path for a program inside the workspace, else the absolute path. */
  path: string;
  /** Lowercase hex SHA-256 of the file it leads to (symlinks followed). */
  sha256: string;
}

/**
 * Programs by role: `command`, `interpreter`, `interpreter program` (what `env` runs),
 * `operand N` (a workspace file the N-th argument names).
 */
export type ProgramPins = Record<string, ProgramPin>;

/** Where a command is resolved. */
export interface ProgramContext {
  /** The workspace root (realpath). */
  root: string;
  /** The command's working directory (relative commands resolve from it). */
  cwd: string;
  /** The environment whose PATH is searched. */
  env: Record<string, string | undefined>;
  /**
   * The command's declared arguments (operand_pin.ts): a literal one naming a file of the
   * workspace (`sh tools/run.sh`, `node tools/x.mjs`) is what runs too, and is pinned as
   * `operand N`. Default none.
   */
  operands?: readonly unknown[];
}

/**
 * Most `#!` levels followed. The kernel follows at most 5 (BINPRM_MAX_RECURSION) before
 * ELOOP; `env` (a binary) starts it again, so a few more are followed, then no further.
 */
const MAX_SHEBANG_LEVELS = 8;

/** Largest program hashed: 1 GiB, like an execution path. */
const MAX_PROGRAM_BYTES = 1024n * 1024n * 1024n;

/**
 * What a file identity looks like, as a memo key; `since` is `Date.now()` taken before the
 * stat. Under Deno ctimeNs has whole-second resolution (and mtime can be set back), so an
 * identity whose ctime is in that second or later may hide a same-size edit made later
 * in it: it is made unique, never equal to another (pin_snapshot.ts `identityOf`).
 */
function identityKey(st: BigIntStats, since: number): string {
  // The mode too: a `chmod +x` within the second would otherwise leave the identity as it was.
  return identityOf(st, since);
}

const memo = new Map<string, string>();
const MEMO_MAX = 256;
/** Hashes in progress, by the same key as `memo`. */
const hashing = new Map<string, Promise<string | undefined>>();

/**
 * SHA-256 of the regular file `path` leads to (symlinks followed), or undefined when it
 * is not a readable regular file of at most 1 GiB.
 *
 * @example
 * ```ts
 * import { programDigest } from "./program_pin.ts";
 * console.log(await programDigest("/bin/sh"));
 * ```
 */
export async function programDigest(path: string): Promise<string | undefined> {
  let real: string;
  let st: BigIntStats;
  const since = Date.now();
  try {
    real = realpathSync(path);
    st = statSync(real, { bigint: true });
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.size > MAX_PROGRAM_BYTES) return undefined;
  const key = `${real}\0${identityKey(st, since)}`;
  const known = memo.get(key);
  if (known !== undefined) return known;
  // Extensions listed together often share a program (`deno`, `node`, `npx`): one hash of
  // the same file, by the same identity, serves every concurrent request for it.
  const running = hashing.get(key);
  if (running !== undefined) return await running;
  const digest = hashRegularFile(real, st).catch(() => undefined);
  hashing.set(key, digest);
  try {
    const done = await digest;
    if (done === undefined) return undefined;
    if (key.includes(":racy")) return done; // unique: never asked for again
    if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
    memo.set(key, done);
    return done;
  } finally {
    hashing.delete(key);
  }
}

/** A script's `#!` line as it runs: the interpreter and, for `env`, what it runs and how. */
export interface Shebang {
  /** The interpreter path, as written (a relative one is taken from the working directory). */
  interpreter: string;
  /** For `env`: the program it looks up (as `execvp` does). */
  program?: string;
  /** For `env`: the environment it gives the program, when it changes it (`PATH=…`, `-i`, `-u`). */
  env?: Record<string, string | undefined>;
  /** For `env`: the directory it changes to first (`-C DIR`). */
  chdir?: string;
}

/**
 * The interpreter line of a script: the interpreter path and, for `env`, the program
 * name it looks up (read as GNU env reads `-S`, with `${VAR}` taken from `env`), the
 * environment it looks it up with and the directory it changes to. Undefined for a file
 * that does not start with `#!`.
 *
 * @example
 * ```ts
 * import { parseShebang } from "./program_pin.ts";
 * parseShebang("#!/usr/bin/env -S deno run -A\n"); // { interpreter: "/usr/bin/env", program: "deno" }
 * ```
 */
export function parseShebang(
  head: string,
  env: Record<string, string | undefined> = {},
): Shebang | undefined {
  if (!head.startsWith("#!")) return undefined;
  // As the kernel reads it (binfmt_script): the first line ends at a newline (a NUL ends
  // it too), only spaces and tabs are trimmed (a `\r` stays part of it), the interpreter
  // ends at a space or tab, and the rest is ONE argument.
  let line = head.slice(2).split("\n")[0];
  if (line.includes("\0")) line = line.slice(0, line.indexOf("\0"));
  line = trimSpaceTab(line);
  const sep = line.search(/[ \t]/);
  const interpreter = sep < 0 ? line : line.slice(0, sep);
  if (interpreter === "") return undefined;
  if (interpreter.split("/").pop() !== "env") return { interpreter };
  const arg = sep < 0 ? "" : trimSpaceTab(line.slice(sep));
  const run = envRun(arg === "" ? [] : [arg], env);
  const out: Shebang = { interpreter };
  if (run.program === undefined) return out;
  out.program = run.program;
  if (run.changedEnv) out.env = run.env;
  if (run.chdir !== undefined) out.chdir = run.chdir;
  return out;
}

/** `s` without leading and trailing spaces and tabs (no other whitespace, no regex). */
function trimSpaceTab(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s[a] === " " || s[a] === "\t")) a++;
  while (b > a && (s[b - 1] === " " || s[b - 1] === "\t")) b--;
  return s.slice(a, b);
}

function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

function lookup(name: string, ctx: ProgramContext, deps?: string[]): string | undefined {
  if (name.startsWith("/")) return name;
  const found = resolveProgram(name, ctx.cwd, ctx.root, ctx.env);
  if (deps !== undefined && !name.includes("/")) {
    // The same name in each PATH folder searched before the one it was found in: a
    // program appearing (or changing) there would be found instead. One existence check
    // each per call, not a folder stat (a chmod +x of a file there shows too).
    for (const dir of (ctx.env.PATH ?? "").split(":")) {
      if (dir === "" || !dir.startsWith("/")) continue;
      const candidate = join(dir, name);
      if (found.ok && found.path === candidate) break; // the program itself is a dep
      deps.push(`?${candidate}`);
    }
  }
  return found.ok ? found.path : undefined;
}

/**
 * Where `execvp` (which `env` uses) finds `name`: a name holding a `/` from the working
 * directory; else each PATH entry in order, an empty one meaning the working directory and
 * a relative one taken from it (PATH unset: `/bin:/usr/bin`). Each entry searched in vain
 * before the one found goes to `deps` as `?path`, so a program appearing there is seen.
 */
function execvpLookup(name: string, ctx: ProgramContext, deps?: string[]): string | undefined {
  if (name.includes("/")) return resolve(ctx.cwd, name);
  for (const dir of (ctx.env.PATH ?? "/bin:/usr/bin").split(":")) {
    const candidate = resolve(ctx.cwd, dir, name);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch { /* not there, or not executable: execvp goes on */ }
    deps?.push(`?${candidate}`);
  }
  return undefined;
}

/** One program a command runs: its role, the name looked up and the file found. */
export interface ProgramStep {
  /** `command`, `interpreter`, `interpreter program` or `operand N`. */
  role: string;
  /** The physical path found (PATH lookups resolved, symlinks not). */
  abs: string;
}

/**
 * The programs `command` runs, resolved now (no hashing): the command, and for a `#!`
 * script its interpreter and what `env` resolves, level by level while those are scripts
 * too (`interpreter 2`, `interpreter 2 program`, …). A program not found is left out.
 *
 * @example
 * ```ts
 * import { programSteps } from "./program_pin.ts";
 * programSteps("sh", { root: "/", cwd: "/", env: { PATH: "/usr/bin:/bin" } })[0].abs; // "/usr/bin/sh"
 * ```
 */
export function programSteps(
  command: string,
  ctx: ProgramContext,
  deps?: string[],
): ProgramStep[] {
  const path = lookup(command, ctx, deps);
  if (path === undefined) return [];
  const out: ProgramStep[] = [{ role: "command", abs: path }];
  deps?.push(path);
  // An interpreter (or what `env` runs) may be a script too: the kernel runs its `#!` in
  // turn, so every level is what runs.
  let file = path;
  // Where the next level runs: `env` may change its directory and environment first.
  let at: ProgramContext = ctx;
  for (let level = 1; level <= MAX_SHEBANG_LEVELS; level++) {
    const bang = parseShebang(readHead(file), at.env);
    if (bang === undefined) break;
    const role = level === 1 ? "interpreter" : `interpreter ${level}`;
    // The kernel opens a relative interpreter from the working directory, never PATH.
    file = resolve(at.cwd, bang.interpreter);
    out.push({ role, abs: file });
    deps?.push(file);
    if (bang.program === undefined) continue;
    at = {
      ...at,
      cwd: bang.chdir === undefined ? at.cwd : resolve(at.cwd, bang.chdir),
      env: bang.env ?? at.env,
    };
    const target = execvpLookup(bang.program, at, deps);
    if (target === undefined) break;
    out.push({ role: `${role} program`, abs: target });
    deps?.push(target);
    file = target;
  }
  return [...out, ...operandSteps(ctx.operands ?? [], ctx.root, ctx.cwd, deps)];
}

/**
 * The identities of what a resolution depended on: each program file's `lstat` (and, for
 * a symlink, the `stat` of what it leads to), and for each name that PATH searched in
 * vain (marked `?`) whether it exists now — and if so its identity. Equal identities mean
 * the same programs would be found, with the same bytes. Cheap enough for every call:
 * one existence check per PATH folder searched, one `lstat` per program file.
 *
 * @example
 * ```ts
 * import { depsIdentity } from "./program_pin.ts";
 * depsIdentity(["/bin/sh", "?/nonexistent/sh"]).length > 0; // true
 * ```
 */
export function depsIdentity(deps: readonly string[]): string {
  let out = "";
  for (const dep of deps) {
    try {
      if (dep.startsWith("?")) {
        const path = dep.slice(1);
        out += existsSync(path) ? `${fileIdentity(path)}\n` : "0\n";
        continue;
      }
      out += `${fileIdentity(dep)}\n`;
    } catch {
      out += "-\n";
    }
  }
  return out;
}

/** A file's identity; for a symlink also that of what it leads to. Throws when missing. */
function fileIdentity(path: string): string {
  const since = Date.now();
  const link = lstatSync(path, { bigint: true });
  if (!link.isSymbolicLink()) return identityKey(link, since);
  return `${identityKey(link, since)}/${identityKey(statSync(path, { bigint: true }), since)}`;
}

interface Traced {
  deps: string[];
  ids: string;
  pins: ProgramPins;
}

const traced = new Map<string, Traced>();

/**
 * Pin the program `command` runs and, for a script, its interpreter (and what `env`
 * resolves). A program that cannot be found or read has no pin under its role, so its
 * appearing later is a difference too.
 *
 * @example
 * ```ts
 * import { pinProgram } from "./program_pin.ts";
 * const pins = await pinProgram("sh", { root: "/", cwd: "/", env: { PATH: "/usr/bin:/bin" } });
 * console.log(pins.command?.path); // "/usr/bin/sh"
 * ```
 */
export async function pinProgram(command: string, ctx: ProgramContext): Promise<ProgramPins> {
  // Unchanged dependencies (PATH folders searched, programs found): the same pins.
  const operands = JSON.stringify(ctx.operands ?? []);
  // The whole environment: `env -S` expands any `${VAR}` of it, and its `PATH=` can build
  // on them.
  const key = `${command}\0${ctx.root}\0${ctx.cwd}\0${JSON.stringify(ctx.env)}\0${operands}`;
  const known = traced.get(key);
  if (known !== undefined && depsIdentity(known.deps) === known.ids) return { ...known.pins };
  const deps: string[] = [];
  const out: ProgramPins = Object.create(null);
  const steps = programSteps(command, ctx, deps);
  const ids = depsIdentity(deps);
  for (const step of steps) {
    const sha = await programDigest(step.abs);
    if (sha === undefined) {
      if (step.role === "command") return out; // an unreadable command: nothing runs
      continue;
    }
    out[step.role] = { path: shown(ctx.root, step.abs), sha256: sha };
  }
  if (traced.size >= MEMO_MAX) traced.delete(traced.keys().next().value!);
  // Only a resolution that did not move while it was hashed is remembered.
  if (depsIdentity(deps) === ids) traced.set(key, { deps, ids, pins: { ...out } });
  return out;
}
