/**
 * The CLI's top-level commands, each module loaded only when its command runs: start-up
 * is paid per command (`toolhost --version` loads no ajv, MCP SDK or TOML parser; `tools
 * check` no MCP server). Help, completions, plugin commands and unknown words load all.
 *
 * @module
 */

import { Command } from "commander";
import type { CliIo } from "./exit.ts";

/** Builds the top-level commands of one group; `done` sets the exit code. */
export type CommandBuilder = (io: CliIo, done: (code: number) => void) => Command[];

function one(f: (io: CliIo, done: (code: number) => void) => Command): CommandBuilder {
  return (io, done) => [f(io, done)];
}

const TOOLS_SUBCOMMANDS = {
  check: async () => (await import("./commands/tools_check.ts")).toolsCheckCommand,
  list: async () => (await import("./commands/tools_list.ts")).toolsListCommand,
  call: async () => (await import("./commands/tools_call.ts")).toolsCallCommand,
};

/** The `tools` group: only the subcommand `word` names when it names one, else all three. */
async function tools(word?: string): Promise<CommandBuilder> {
  const loaders = word !== undefined && Object.hasOwn(TOOLS_SUBCOMMANDS, word)
    ? [TOOLS_SUBCOMMANDS[word as keyof typeof TOOLS_SUBCOMMANDS]]
    : Object.values(TOOLS_SUBCOMMANDS);
  const subcommands = await Promise.all(loaders.map((load) => load()));
  return (io, done) => {
    const group = new Command("tools")
      .description("Check, list and call the tools of an eval.")
      .addHelpText("after", "\nExample:\n  toolhost tools list --eval app/review\n");
    for (const sub of subcommands) group.addCommand(sub(io, done));
    return [group];
  };
}

/** Built-in top-level command name → loader of its builder, in help order. */
const LOADERS: Record<string, (word?: string) => Promise<CommandBuilder>> = {
  tools,
  artifact: async () => one((await import("./commands/artifact_validate.ts")).artifactCommand),
  sweep: async () => one((await import("./commands/sweep.ts")).sweepCommand),
  graph: async () => one((await import("./commands/graph.ts")).graphCommand),
  demo: async () => one((await import("./commands/demo.ts")).demoCommand),
  serve: async () => one((await import("./commands/serve.ts")).serveCommand),
  init: async () => one((await import("./commands/init.ts")).initCommand),
  lock: async () => one((await import("./commands/lock.ts")).lockCommand),
  extensions: async () => one((await import("./commands/extensions.ts")).extensionsCommand),
  completions: async () => one((await import("./completions.ts")).completionsCommand),
};

async function plugins(): Promise<CommandBuilder> {
  const { pluginCliCommands } = await import("../plugins/cli.ts");
  return (io, done) => pluginCliCommands(io, done);
}

/**
 * The builders `argv` needs: only its built-in command's when its first word names one
 * (except `completions`, which describes the whole tree; for `tools`, only the subcommand
 * the second word names, if it names one), else every one, plugins' last.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * import { commandBuilders } from "./command_loaders.ts";
 * const program = new Command("toolhost");
 * const io = { out: (s: string) => console.log(s), err: (s: string) => console.error(s) };
 * for (const build of await commandBuilders(["tools", "check"])) {
 *   for (const c of build(io, () => {})) program.addCommand(c);
 * }
 * ```
 */
export function commandBuilders(argv: readonly string[]): Promise<CommandBuilder[]> {
  const first = argv[0];
  if (first !== undefined && first !== "completions" && Object.hasOwn(LOADERS, first)) {
    return Promise.all([LOADERS[first](argv[1])]);
  }
  return Promise.all([...Object.values(LOADERS).map((load) => load()), plugins()]);
}
