/**
 * The `toolhost` command line: builds the command tree and maps errors to exit codes.
 *
 * @module
 */

import { Command, CommanderError } from "commander";
import { toolsCheckCommand } from "./commands/tools_check.ts";
import { toolsListCommand } from "./commands/tools_list.ts";
import { toolsCallCommand } from "./commands/tools_call.ts";
import { demoCommand } from "./commands/demo.ts";
import { serveCommand } from "./commands/serve.ts";
import { artifactCommand } from "./commands/artifact_validate.ts";
import { graphCommand } from "./commands/graph.ts";
import { sweepCommand } from "./commands/sweep.ts";
import { initCommand } from "./commands/init.ts";
import { lockCommand } from "./commands/lock.ts";
import { extensionsCommand } from "./commands/extensions.ts";
import { type CliIo, EXIT, processIo, reportError } from "./exit.ts";
import { completionsCommand } from "./completions.ts";
import { colorEnabled, paint } from "./color.ts";
import { VERSION } from "../version.ts";
import { pluginCliCommands } from "../plugins/cli.ts";

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
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .addHelpText("after", "\nExample:\n  toolhost tools check --repo examples app/review\n");
  const tools = new Command("tools")
    .description("Check, list and call the tools of an eval.")
    .addHelpText("after", "\nExample:\n  toolhost tools list --eval app/review\n");
  tools.addCommand(toolsCheckCommand(io, done));
  tools.addCommand(toolsListCommand(io, done));
  tools.addCommand(toolsCallCommand(io, done));
  program.addCommand(tools);
  program.addCommand(artifactCommand(io, done));
  program.addCommand(sweepCommand(io, done));
  program.addCommand(graphCommand(io, done));
  program.addCommand(demoCommand(io, done));
  program.addCommand(serveCommand(io, done));
  program.addCommand(initCommand(io, done));
  program.addCommand(lockCommand(io, done));
  program.addCommand(extensionsCommand(io, done));
  program.addCommand(completionsCommand(io, done));
  for (const c of pluginCliCommands(io, done)) program.addCommand(c);
  applyToTree(program, (c) => {
    c.exitOverride();
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

function applyToTree(cmd: Command, f: (c: Command) => void): void {
  f(cmd);
  for (const c of cmd.commands) applyToTree(c as Command, f);
}
