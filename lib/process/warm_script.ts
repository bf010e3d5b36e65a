/**
 * The waiter of a warm (pre-spawned, single-use) sandbox and the call it is handed.
 *
 * A spare sandbox runs `dash -c WAITER_SCRIPT` with an environment holding its group tag,
 * its own tmp dir's variables and what bwrap sets (lib/sandbox/warm_spare.ts
 * `sandboxWaiterBase`: paths, never a value of a call's). The waiter reads one line from file descriptor {@link CALL_FD} (a pipe or socket
 * toolhost holds; never stdin, which is the tool's input), closes it, and `eval`s it.
 * The line is {@link callPayload}: `unset` of what the waiter's own environment holds
 * beyond the tool's (`DENO_EXTRA_STDIO_FDS`, set by a Deno spawn), one
 * `export NAME='value'` per variable of the tool's environment the waiter does not
 * already hold with that very value (`export NAME="$OTHER"`
 * for a value this line already exported, as a call's `TMP` and `TEMP` repeat its
 * `TMPDIR`: dash reads the line a byte per system call), then
 * `exec 'program' 'arg'…` — every other value single-quoted, newlines written as `"$_th_nl"`
 * so the whole call is one line, read completely before anything runs (a cut line
 * makes `read` fail, and the waiter exits without running anything). No argument or
 * environment value is ever on a command line (`/proc/PID/cmdline` is world-readable):
 * the waiter's command line is the fixed script, and the tool's is its own argv, as on
 * the cold path.
 *
 * `dash` is required: it exports nothing of its own (it keeps the `PWD` bwrap set), while bash exports `_`,
 * `SHLVL` and `OLDPWD` and sets `_` on every `exec`. Where no trusted dash is installed,
 * {@linkcode waiterShell} is null and every call takes the cold path.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { statSync } from "node:fs";
import { isEnvName } from "./env.ts";

/** The waiter's file descriptor the call is read from (fd 3 is bwrap's `--info-fd`). */
export const CALL_FD = 4;

/** The shell variables the waiter uses itself (an environment naming them goes cold). */
const OWN_VARS = ["_th_nl", "_th_p"];

/**
 * Names dash rejects or rewrites when exported (`OPTIND` must be a number): a call whose
 * environment holds one takes the cold path.
 */
const SHELL_SPECIAL = ["OPTIND"];

/**
 * Most bytes of a call line handed to a waiter (dash's `read` takes it a byte per system
 * call). Past it, the cold path runs the call — so an argument list the kernel refuses
 * (`E2BIG`) fails exactly as it does there.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

/**
 * The waiter: exit 1 if anything fails before the tool's `exec` succeeds (as bwrap does
 * when it cannot `execvp` the command), read the call line from fd 4, close it, run it.
 *
 * @example
 * ```ts
 * import { WAITER_SCRIPT } from "./warm_script.ts";
 * WAITER_SCRIPT.includes("read -r"); // true
 * ```
 */
export const WAITER_SCRIPT = [
  "trap 'exit 1' EXIT",
  "_th_nl='",
  "'",
  `IFS= read -r _th_p <&${CALL_FD} || exit 1`,
  `exec ${CALL_FD}<&-`,
  'eval "$_th_p"',
].join("\n");

/**
 * The waiter of an unconfined spare ({@linkcode WAITER_SCRIPT} reading its line from
 * stdin instead): dash's `read` takes a pipe a byte at a time, so it stops at the line's
 * end and the rest of stdin is the tool's input, untouched. A failed `exec` exits as the
 * setsid launcher's does (util-linux `setsid`: 127 when the program or its interpreter
 * is missing, else 126; dash gives 127, 126 or 2).
 *
 * @example
 * ```ts
 * import { STDIN_WAITER_SCRIPT } from "./warm_script.ts";
 * STDIN_WAITER_SCRIPT.includes("<&"); // false
 * ```
 */
export const STDIN_WAITER_SCRIPT = [
  `trap 'e=$?; [ "$e" = 127 ] || e=126; exit "$e"' EXIT`,
  "_th_nl='",
  "'",
  "IFS= read -r _th_p || exit 1",
  'eval "$_th_p"',
].join("\n");

/** Where dash is looked for (root-owned, not writable by others). */
const DASH_CANDIDATES = ["/usr/bin/dash", "/bin/dash"];

let dash: string | null | undefined;

/**
 * The trusted `dash` a waiter runs under, or null when there is none (warm sandboxes are
 * then off). Decided once per process.
 *
 * @example
 * ```ts
 * import { waiterShell } from "./warm_script.ts";
 * waiterShell(); // "/usr/bin/dash" on Debian
 * ```
 */
export function waiterShell(): string | null {
  if (dash !== undefined) return dash;
  dash = DASH_CANDIDATES.find((p) => {
    try {
      const st = statSync(p);
      return st.isFile() && st.uid === 0 && (st.mode & 0o022) === 0 && (st.mode & 0o111) !== 0;
    } catch {
      return false;
    }
  }) ?? null;
  return dash;
}

/**
 * `s` as one single-quoted dash word: any character but `'` stands for itself inside
 * single quotes; `'` is written `'\''`, and a newline `'"$_th_nl"'` (the payload is one
 * line).
 *
 * @example
 * ```ts
 * import { shellQuote } from "./warm_script.ts";
 * shellQuote("it's"); // "'it'\\''s'"
 * ```
 */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''").replaceAll("\n", `'"$_th_nl"'`)}'`;
}

/** `name` is one dash exports unchanged, and not one the waiter uses itself. */
function exportable(name: string): boolean {
  return isEnvName(name) && !OWN_VARS.includes(name) && !SHELL_SPECIAL.includes(name);
}

/**
 * Names a waiter's base environment must not hold (warm_host.ts `hostBaseEnv`): those
 * dash sets, rewrites or reads itself (`PWD`, `OLDPWD`, `IFS`, `OPTIND`, the prompts,
 * `ENV`, `PPID`, `LINENO`, `CDPATH`, the mail and history variables, `_`), the waiter's own
 * variables, and what a spawn or the line sets anyway. A call's value for one of them
 * is always exported by its line.
 *
 * @example
 * ```ts
 * import { WAITER_RESERVED_NAMES } from "./warm_script.ts";
 * WAITER_RESERVED_NAMES.has("IFS"); // true
 * ```
 */
export const WAITER_RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...OWN_VARS,
  ...SHELL_SPECIAL,
  "e", // the trap's
  "PWD",
  "OLDPWD",
  "CDPATH", // the line's `cd`
  "IFS",
  "PS1",
  "PS2",
  "PS4",
  "ENV",
  "PPID",
  "LINENO",
  "MAIL",
  "MAILPATH",
  "MAILCHECK",
  "HISTSIZE",
  "TERM",
  "_",
  "DENO_EXTRA_STDIO_FDS",
]);

/**
 * `v` as the word of an `export`: `"$NAME"` when this line already exported `v` as
 * `NAME` and that is shorter (dash reads the line a byte per system call), else quoted.
 * Only names dash neither sets nor rewrites are referred to (none of
 * {@linkcode WAITER_RESERVED_NAMES}), and a double-quoted expansion is the value, byte
 * for byte.
 */
function valueWord(v: string, exported: ReadonlyMap<string, string>): string {
  const quoted = shellQuote(v);
  const name = exported.get(v);
  return name !== undefined && name.length + 3 < quoted.length ? `"$${name}"` : quoted;
}

/** One call as a waiter runs it. */
export interface WarmCall {
  /** Absolute program path. */
  command: string;
  /** argv[1..]. */
  args: readonly string[];
  /** The tool's complete environment, except the group tag (the spare's own stays). */
  env: Readonly<Record<string, string>>;
  /**
   * The working directory to change to first (an unconfined spare waits in `/`); then
   * the `PWD` dash exports is unset too (a cold unconfined spawn has only `env`; `env`'s
   * own `PWD` is exported after). Default: stay (a sandbox's waiter starts in it).
   */
  cwd?: string;
  /**
   * The environment the waiter was spawned with, besides its group tag (an unconfined
   * spare's base: warm_host.ts `hostBaseEnv`; a sandbox's: lib/sandbox/warm_spare.ts
   * `sandboxWaiterBase`): the line then unsets what of it `env`
   * lacks and exports only what `env` adds or changes. Default none (all of `env`).
   */
  base?: Readonly<Record<string, string>>;
}

/**
 * The line a waiter `eval`s to become `call`, or why `call` cannot be handed to a waiter
 * (it then takes the cold path, with the very same outcome as ever): a NUL byte (the
 * spawn refuses it), an environment name dash cannot export unchanged, or a line past
 * {@link MAX_PAYLOAD_BYTES}. The line sets exactly `call.env` (besides the group tag),
 * then `exec`s the program with its arguments; newline-terminated.
 *
 * @example
 * ```ts
 * import { callPayload } from "./warm_script.ts";
 * const p = callPayload({ command: "/bin/echo", args: ["a b"], env: { X: "1" } });
 * if (p.ok) new TextDecoder().decode(p.line); // "unset DENO_EXTRA_STDIO_FDS OLDPWD; export X='1'; exec '/bin/echo' 'a b'\n"
 * ```
 */
export function callPayload(
  call: WarmCall,
): { ok: true; line: Uint8Array } | { ok: false; reason: string } {
  if (!call.command.startsWith("/")) return { ok: false, reason: "relative command" };
  const unset = call.cwd === undefined
    ? ["DENO_EXTRA_STDIO_FDS", "OLDPWD"]
    : ["DENO_EXTRA_STDIO_FDS", "OLDPWD", "PWD"];
  const base = call.base ?? {};
  for (const k of Object.keys(base)) {
    if (!exportable(k)) return { ok: false, reason: "base environment name" };
    if (!Object.hasOwn(call.env, k) && !unset.includes(k)) unset.push(k);
  }
  const parts = call.cwd === undefined ? [] : [`cd -P -- ${shellQuote(call.cwd)} || exit 126`];
  parts.push(`unset ${unset.join(" ")}`);
  /** Value → a plain name this line exported with it (a call's TMPDIR, TMP and TEMP). */
  const exported = new Map<string, string>();
  for (const [k, v] of Object.entries(call.env)) {
    if (!exportable(k)) return { ok: false, reason: "environment name" };
    if (Object.hasOwn(base, k) && base[k] === v) continue; // inherited as it is
    parts.push(`export ${k}=${valueWord(v, exported)}`);
    if (!exported.has(v) && !WAITER_RESERVED_NAMES.has(k)) exported.set(v, k);
  }
  parts.push(["exec", shellQuote(call.command), ...call.args.map(shellQuote)].join(" "));
  const text = `${parts.join("; ")}\n`;
  if (text.includes("\0")) return { ok: false, reason: "NUL byte" };
  const line = Buffer.from(text, "utf8");
  if (line.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: "size" };
  return { ok: true, line };
}
