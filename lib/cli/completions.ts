/**
 * Shell completion scripts for bash, zsh and fish, generated from the CLI's own commander
 * tree, so every command and option the binary accepts is completed and nothing else.
 *
 * Install:
 * - bash: `source <(toolhost completions bash)` (e.g. in ~/.bashrc), or
 *   `toolhost completions bash > ~/.local/share/bash-completion/completions/toolhost`
 * - zsh:  `toolhost completions zsh > "${fpath[1]}/_toolhost"` (or source it after compinit)
 * - fish: `toolhost completions fish > ~/.config/fish/completions/toolhost.fish`
 *
 * @module
 */

import { Command, InvalidArgumentError } from "commander";
import { type CliIo, EXIT } from "./exit.ts";

/** The shells a script can be generated for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** A shell a script can be generated for. */
export type Shell = typeof SHELLS[number];

/** One option of a command, as completion sees it. */
export interface CompletionOption {
  /** Long flag with dashes, e.g. `--eval`. */
  long: string;
  /** Short flag with its dash, e.g. `-V`, if any. */
  short?: string;
  /** One-line description. */
  description: string;
  /** Whether the option takes a value. */
  takesValue: boolean;
  /** Whether the value is a file or folder path (completed from the file system). */
  pathValue: boolean;
}

/** One command of the tree. */
export interface CompletionNode {
  /** Command words from the root, e.g. `["tools", "check"]` (empty for the root). */
  path: string[];
  /** One-line description. */
  description: string;
  /** Subcommands. */
  children: CompletionNode[];
  /** Options, including `--help` (and `--version` on the root). */
  options: CompletionOption[];
}

const PATH_OPTIONS = new Set(["--repo", "--state-dir", "--root"]);

function firstLine(s: string): string {
  return s.split("\n")[0].trim();
}

/**
 * Read the completion tree from a commander program (hidden commands are left out).
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { completionTree } from "./completions.ts";
 * const root = completionTree(new Command("toolhost").option("--repo <dir>", "root"));
 * root.options.map((o) => o.long); // ["--repo", "--help"]
 * ```
 */
export function completionTree(cmd: Command, path: string[] = []): CompletionNode {
  const options: CompletionOption[] = cmd.options
    .filter((o) => !o.hidden && o.long)
    .map((o) => ({
      long: o.long!,
      short: o.short,
      description: firstLine(o.description),
      takesValue: o.required || o.optional,
      pathValue: PATH_OPTIONS.has(o.long!),
    }));
  options.push({
    long: "--help",
    short: "-h",
    description: "display help",
    takesValue: false,
    pathValue: false,
  });
  const hidden = (c: Command) => (c as unknown as { _hidden?: boolean })._hidden === true;
  return {
    path,
    description: firstLine(cmd.description()),
    children: cmd.commands.filter((c) => !hidden(c)).map((c) =>
      completionTree(c as Command, [...path, c.name()])
    ),
    options,
  };
}

function allNodes(node: CompletionNode): CompletionNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}

/** Quote for a POSIX shell (single quotes). */
function sq(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function bashScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const known = nodes.filter((n) => n.path.length > 0).map((n) => sq(n.path.join(" ")));
  const words = nodes.map((n) =>
    `    ${sq(n.path.join(" "))}) words=${
      sq([...n.children.map((c) => c.path.at(-1)!), ...n.options.map((o) => o.long)].join(" "))
    } ;;`
  );
  const valued = nodes.flatMap((n) => n.options).filter((o) => o.takesValue);
  const pathOpts = [...new Set(valued.filter((o) => o.pathValue).map((o) => o.long))];
  const otherOpts = [...new Set(valued.filter((o) => !o.pathValue).map((o) => o.long))];
  return `# toolhost completion for bash. Load it with: source <(toolhost completions bash)
_toolhost() {
  local cur prev cmdpath cand words i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    ${pathOpts.join("|") || "--"}) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    ${otherOpts.join("|") || "--"}) COMPREPLY=(); return 0 ;;
  esac
  cmdpath=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    cand="\${cmdpath:+$cmdpath }$w"
    case "$cand" in
      ${known.join("|")}) cmdpath="$cand" ;;
    esac
  done
  words=""
  case "$cmdpath" in
${words.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _toolhost toolhost
`;
}

/** Quote for fish (single quotes, where `\\` and `\'` are escapes). */
function fq(s: string): string {
  return `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

/** Escape a zsh `_describe` entry (`name:description`). */
function zd(name: string, description: string): string {
  return sq(`${name.replaceAll(":", "\\:")}:${description}`);
}

function zshScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const known = nodes.filter((n) => n.path.length > 0).map((n) => sq(n.path.join(" ")));
  const cases = nodes.map((n) =>
    `    ${sq(n.path.join(" "))})\n      cmds=(${
      n.children.map((c) => zd(c.path.at(-1)!, c.description)).join(" ")
    })\n      opts=(${n.options.map((o) => zd(o.long, o.description)).join(" ")}) ;;`
  );
  const pathOpts = [
    ...new Set(nodes.flatMap((n) => n.options).filter((o) => o.pathValue).map((o) => o.long)),
  ];
  return `#compdef toolhost
# toolhost completion for zsh. Install: toolhost completions zsh > "\${fpath[1]}/_toolhost"
_toolhost() {
  local cmdpath="" cand w i
  local -a cmds opts
  case "\${words[CURRENT-1]}" in
    ${pathOpts.join("|") || "--"}) _files; return ;;
  esac
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    cand="\${cmdpath:+$cmdpath }$w"
    case "$cand" in
      ${known.join("|")}) cmdpath="$cand" ;;
    esac
  done
  case "$cmdpath" in
${cases.join("\n")}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t options option opts
  else
    _describe -t commands command cmds
  fi
}
if [ "$funcstack[1]" = "_toolhost" ]; then
  _toolhost "$@"
else
  compdef _toolhost toolhost
fi
`;
}

function fishScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const known = nodes.filter((n) => n.path.length > 0).map((n) => fq(n.path.join(" ")));
  const lines: string[] = [];
  for (const n of nodes) {
    const cond = `-n ${fq(`__toolhost_at ${fq(n.path.join(" "))}`)}`;
    for (const c of n.children) {
      lines.push(`complete -c toolhost ${cond} -a ${fq(c.path.at(-1)!)} -d ${fq(c.description)}`);
    }
    for (const o of n.options) {
      const short = o.short ? ` -s ${o.short.slice(1)}` : "";
      const value = o.takesValue ? (o.pathValue ? " -r -F" : " -r") : "";
      lines.push(
        `complete -c toolhost ${cond} -l ${o.long.slice(2)}${short}${value} -d ${
          fq(o.description)
        }`,
      );
    }
  }
  return `# toolhost completion for fish.
# Install: toolhost completions fish > ~/.config/fish/completions/toolhost.fish
set -g __toolhost_paths ${known.join(" ")}
function __toolhost_at --description 'the toolhost command path typed so far is $argv[1]'
  set -l cmdpath ''
  set -l toks (commandline -opc)
  set -e toks[1]
  for w in $toks
    set -l cand (string trim -- "$cmdpath $w")
    if contains -- $cand $__toolhost_paths
      set cmdpath $cand
    end
  end
  test "$cmdpath" = "$argv[1]"
end
complete -c toolhost -f
${lines.join("\n")}
`;
}

/**
 * The completion script for `shell`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { completionScript, completionTree } from "./completions.ts";
 * const program = new Command("toolhost");
 * program.command("tools").description("Tools.");
 * completionScript("bash", completionTree(program)).includes("complete -o default"); // true
 * ```
 */
export function completionScript(shell: Shell, root: CompletionNode): string {
  if (shell === "bash") return bashScript(root);
  if (shell === "zsh") return zshScript(root);
  return fishScript(root);
}

function parseShell(value: string): Shell {
  if (!(SHELLS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`choose one of ${SHELLS.join(", ")}`);
  }
  return value as Shell;
}

/**
 * Build the `completions` command; it prints the script for the program it is added to.
 *
 * @example
 * ```ts
 * import { processIo } from "./exit.ts";
 * import { completionsCommand } from "./completions.ts";
 * completionsCommand(processIo, () => {});
 * ```
 */
export function completionsCommand(io: CliIo, done: (code: number) => void): Command {
  return new Command("completions")
    .description("Print a shell completion script for bash, zsh or fish.")
    .argument("<shell>", "bash, zsh or fish", parseShell)
    .addHelpText(
      "after",
      "\nExamples:\n  toolhost completions bash > ~/.local/share/bash-completion/completions/toolhost\n" +
        "  source <(toolhost completions bash)\n" +
        '  toolhost completions zsh > "${fpath[1]}/_toolhost"\n' +
        "  toolhost completions fish > ~/.config/fish/completions/toolhost.fish\n",
    )
    .action((shell: Shell, _o: unknown, cmd: Command) => {
      let root = cmd;
      while (root.parent) root = root.parent;
      io.out(completionScript(shell, completionTree(root)));
      done(EXIT.ok);
    });
}
