/**
 * What `/usr/bin/env` runs, read as GNU env reads its arguments: the `-S` string split
 * with its quotes, escapes and `${VAR}` expansion; the options `-i`, `-u NAME`, `-C DIR`
 * (and their long forms); `NAME=VALUE` assignments; then the program. The program is
 * looked up with the environment env has made (its own `PATH=…`, `-i`, `-u PATH`) from the
 * directory it changed to, so a pin taken with the tool's own PATH would name the wrong
 * file. What env itself refuses (an unterminated quote, `$X` without braces, an unknown
 * escape) runs no program.
 *
 * @module
 */

/** What env does before it `execvp`s its program. */
export interface EnvRun {
  /** The program word (looked up as `execvp` does), undefined when env runs none. */
  program?: string;
  /** The environment the program is looked up with (and runs in). */
  env: Record<string, string | undefined>;
  /** Whether `env` differs from the one env was given (assignments, `-i`, `-u`). */
  changedEnv: boolean;
  /** The directory env changes to (`-C`), relative to its own working directory. */
  chdir?: string;
}

const SPACE = new Set([" ", "\t", "\n", "\v", "\f", "\r"]);
const ESCAPES: Record<string, string> = {
  '"': '"',
  "#": "#",
  $: "$",
  "'": "'",
  "\\": "\\",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** `${NAME}` at `s[i]` (`s[i]` is `$`): the value and the index after `}`; undefined: env fails. */
function expand(s: string, i: number, env: Record<string, string | undefined>) {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(s.slice(i));
  return m === null ? undefined : { value: env[m[1]] ?? "", next: i + m[0].length };
}

/**
 * Split an `env -S` string as GNU env does (coreutils `env.c`, `build_argv`); undefined
 * when env would refuse it.
 *
 * @example
 * ```ts
 * import { splitEnvString } from "./env_split.ts";
 * splitEnvString(`deno run "-A" my\\_x`, {}); // ["deno", "run", "-A", "my", "x"]
 * ```
 */
export function splitEnvString(
  s: string,
  env: Record<string, string | undefined>,
): string[] | undefined {
  const out: string[] = [];
  let word: string | undefined;
  let sq = false;
  let dq = false;
  const end = () => {
    if (word !== undefined) out.push(word);
    word = undefined;
  };
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === "'" && !dq) [sq, word, i] = [!sq, word ?? "", i + 1];
    else if (c === '"' && !sq) [dq, word, i] = [!dq, word ?? "", i + 1];
    else if (SPACE.has(c) && !sq && !dq) [i] = [i + 1, end()];
    else if (c === "#" && !sq && !dq && word === undefined) break; // a comment
    else if (c === "$" && !sq) {
      const x = expand(s, i, env);
      if (x === undefined) return undefined;
      [word, i] = [(word ?? "") + x.value, x.next];
    } else if (c === "\\" && !(sq && s[i + 1] !== "\\" && s[i + 1] !== "'")) {
      const n = s[i + 1];
      if (n === "_" && !dq) [i] = [i + 2, end()];
      else if (n === "_") [word, i] = [(word ?? "") + " ", i + 2];
      else if (n === "c" && !dq) break;
      else if (n === undefined || !Object.hasOwn(ESCAPES, n)) return undefined;
      else [word, i] = [(word ?? "") + ESCAPES[n], i + 2];
    } else [word, i] = [(word ?? "") + c, i + 1];
  }
  if (sq || dq) return undefined;
  end();
  return out;
}

/** Options taking a value: short letter → long name. */
const VALUED: Record<string, string> = { a: "argv0", C: "chdir", S: "split-string", u: "unset" };

/** GNU env's long options (getopt_long takes any unambiguous prefix of one). */
const LONG = [
  "argv0",
  "block-signal",
  "chdir",
  "debug",
  "default-signal",
  "help",
  "ignore-environment",
  "ignore-signal",
  "list-signal-handling",
  "null",
  "split-string",
  "unset",
  "version",
];

/** The long option `name` stands for, or undefined when env refuses it (unknown, ambiguous). */
function longOption(name: string): string | undefined {
  if (LONG.includes(name)) return name;
  const matches = LONG.filter((n) => n.startsWith(name));
  return name !== "" && matches.length === 1 ? matches[0] : undefined;
}

/**
 * env's arguments (already one word each, as the kernel or a split gave them) → what it
 * runs. Options end at the first word that is not one (or `--`); words holding `=` are then
 * assignments; the next word is the program.
 *
 * @example
 * ```ts
 * import { envRun } from "./env_split.ts";
 * envRun(["-S", "PATH=bin node"], { PATH: "/usr/bin" }).program; // "node"
 * ```
 */
export function envRun(args: readonly string[], given: Record<string, string | undefined>): EnvRun {
  const words = [...args];
  let clear = false;
  const unset: string[] = [];
  let chdir: string | undefined;
  const option = (name: string, value: string): boolean => {
    if (name === "unset") unset.push(value);
    else if (name === "chdir") chdir = value;
    else if (name === "split-string") {
      const split = splitEnvString(value, given);
      if (split === undefined) return false;
      words.splice(0, 0, ...split);
    }
    return true;
  };
  const none = { env: given, changedEnv: false };
  while (words.length > 0 && words[0].startsWith("-") && words[0] !== "-") {
    const w = words.shift()!;
    if (w === "--") break;
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      const name = longOption(w.slice(2, eq < 0 ? undefined : eq));
      if (name === undefined) return none; // env refuses it: runs nothing
      if (name === "ignore-environment") clear = true;
      if (!Object.values(VALUED).includes(name)) continue;
      const value = eq < 0 ? words.shift() : w.slice(eq + 1);
      if (value === undefined || !option(name, value)) return none;
      continue;
    }
    for (let k = 1; k < w.length; k++) {
      if (w[k] === "i") clear = true;
      if (!Object.hasOwn(VALUED, w[k])) continue;
      const value = k + 1 < w.length ? w.slice(k + 1) : words.shift();
      if (value === undefined || !option(VALUED[w[k]], value)) return none;
      break;
    }
  }
  // A lone `-` after the options is the old spelling of `-i`.
  if (words[0] === "-") [clear] = [true, words.shift()];
  const env: Record<string, string | undefined> = clear ? {} : { ...given };
  for (const name of unset) delete env[name];
  let changedEnv = clear || unset.length > 0;
  while (words.length > 0 && words[0].includes("=")) {
    const w = words.shift()!;
    env[w.slice(0, w.indexOf("="))] = w.slice(w.indexOf("=") + 1);
    changedEnv = true;
  }
  return { program: words[0], env: changedEnv ? env : given, changedEnv, chdir };
}
