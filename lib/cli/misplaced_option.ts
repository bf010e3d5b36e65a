/**
 * A command option written before the command (`toolhost --repo DIR tools list`): the hint that
 * says where it goes, with the command line rewritten to copy.
 *
 * @module
 */

/** Options of the commands that take a value; `--json` takes none. */
const VALUED = new Set(["--repo", "--state-dir", "--eval"]);
const FLAGS = new Set(["--json"]);

function optionName(word: string): string {
  const eq = word.indexOf("=");
  return eq > 0 ? word.slice(0, eq) : word;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * When `argv` starts with command options (`--repo`, `--state-dir`, `--eval`, `--json`)
 * followed by a command, the message that names them and shows the command line with them
 * after the command; otherwise undefined.
 *
 * @example
 * ```ts
 * import { misplacedOptionHint } from "./misplaced_option.ts";
 * misplacedOptionHint(["--repo", "examples", "tools", "list"]);
 * // "error: --repo goes after the command: toolhost tools list --repo examples\n"
 * ```
 */
export function misplacedOptionHint(argv: readonly string[]): string | undefined {
  const moved: string[] = [];
  const names: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const name = optionName(argv[i]);
    if (FLAGS.has(name) && name === argv[i]) {
      moved.push(argv[i++]);
    } else if (VALUED.has(name)) {
      const take = name === argv[i] ? 2 : 1;
      if (i + take > argv.length) return undefined;
      moved.push(...argv.slice(i, i + take));
      i += take;
    } else break;
    names.push(name);
  }
  const rest = argv.slice(i);
  if (names.length === 0 || rest.length === 0 || rest[0].startsWith("-")) return undefined;
  const line = ["toolhost", ...rest, ...moved].map(shellWord).join(" ");
  const which = names.join(", ");
  return `error: ${which} ${names.length > 1 ? "go" : "goes"} after the command: ${line}\n`;
}
