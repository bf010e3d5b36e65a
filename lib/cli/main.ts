/**
 * The `toolhost` command line: builds the command tree and maps errors to exit codes.
 *
 * @module
 */

import { Command, CommanderError } from "commander";
import { toolsCheckCommand } from "./commands/tools_check.ts";
import { toolsListCommand } from "./commands/tools_list.ts";
import { demoCommand } from "./commands/demo.ts";
import { type CliIo, EXIT, processIo, reportError } from "./exit.ts";
import { VERSION } from "../version.ts";

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
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  const tools = new Command("tools").description("Check, list and call the tools of an eval.");
  tools.addCommand(toolsCheckCommand(io, done));
  tools.addCommand(toolsListCommand(io, done));
  program.addCommand(tools);
  program.addCommand(demoCommand(io, done));
  for (const c of [program, tools, ...program.commands, ...tools.commands]) c.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === "commander.helpDisplayed" || e.code === "commander.version") return EXIT.ok;
      if (e.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    return reportError(e, io);
  }
  return code;
}
