/**
 * The `toolhost` command line: builds the command tree and maps errors to exit codes.
 *
 * @module
 */

import { Command, CommanderError } from "commander";
import { type CliIo, EXIT, processIo, reportError } from "./exit.ts";
import { colorEnabled, paint } from "./color.ts";
import { VERSION } from "../version.ts";
import { commandBuilders } from "./command_loaders.ts";
import { misplacedOptionHint } from "./misplaced_option.ts";

/** The root help's examples: a first workspace from nothing (most readers have no clone). */
const ROOT_EXAMPLES = `
Examples:
  toolhost init json-tool greet        # in an empty folder: a tool, its test, toolhost.toml
  toolhost tools check                 # every eval: ready or not, why, and the fix
  toolhost tools call greet_tools --eval tools/agent --args '{"who":"Ada"}'
  toolhost serve --eval tools/agent    # MCP over stdio
`;

/**
 * Run the CLI with `argv` (without the program name); resolves to the exit code.
 *
 * @example
 * ```ts
 * import { runCli } from "./main.ts";
 * const code = await runCli(["tools", "check", "--repo", "examples"]);
 * ```
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  // `help tools call`: commander's help command stops at its first word (`tools`).
  if (argv.length > 2 && argv[0] === "help" && argv.slice(1).every(isWord)) {
    argv = [...argv.slice(1), "--help"];
  }
  let code: number = EXIT.ok;
  const done = (c: number) => {
    code = c;
  };
  const program = new Command("toolhost")
    .description(
      "Declare agent tools in toolhost.toml; validate, list, run, supervise and serve them.",
    )
    .version(VERSION, "-V, --version")
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .addHelpText("after", ROOT_EXAMPLES);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    io.out(`${VERSION}\n`); // what commander prints, without loading any command
    return EXIT.ok;
  }
  if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "version")) {
    // What other tools spell it: name the one this one takes.
    const what = argv[0] === "-v" ? "option '-v'" : "command 'version'";
    io.err(`error: unknown ${what}\n(Did you mean --version (-V)?)\n(see \`toolhost --help\`)\n`);
    return EXIT.usage;
  }
  const misplaced = misplacedOptionHint(argv);
  if (misplaced !== undefined) {
    io.err(`${misplaced}(see \`toolhost --help\`)\n`);
    return EXIT.usage;
  }
  for (const build of await commandBuilders(argv)) {
    for (const c of build(io, done)) program.addCommand(c);
  }
  applyToTree(program, (c) => {
    c.exitOverride();
    c.showHelpAfterError(`(see \`${commandPath(c)} --help\`)`);
    c.configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      outputError: (s, write) => write(paint(s, "red", io === processIo && colorEnabled())),
    });
  });
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return EXIT.ok;
      // `help({ error: true })`, e.g. a missing subcommand, is an invalid invocation.
      if (e.code === "commander.help") return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return EXIT.usage;
    }
    return reportError(e, io);
  }
  return code;
}

/** A command word (not an option). */
function isWord(arg: string): boolean {
  return /^[a-z][a-z0-9-]*$/.test(arg);
}

/** `toolhost tools list` for the `list` command: the words that run it. */
function commandPath(c: Command): string {
  const words: string[] = [];
  for (let at: Command | null = c; at !== null; at = at.parent) words.unshift(at.name());
  return words.join(" ");
}

function applyToTree(cmd: Command, f: (c: Command) => void): void {
  f(cmd);
  for (const c of cmd.commands) applyToTree(c as Command, f);
}
