/**
 * The CLI subcommands first-party plugins contribute (`toolhost audit tail`,
 * `toolhost policy check`, ...), each given a context bound to its plugin.
 *
 * @module
 */

import type { Command } from "commander";
import { openWorkspace } from "../cli/common_options.ts";
import { pluginsOf } from "../workspace/parse_plugins.ts";
import type { Plugin, PluginCliContext } from "./api.ts";
import { firstPartyPlugins } from "./catalog.ts";

/** What the CLI hands over (structurally `CliIo` plus the exit-code setter). */
export interface CliHost {
  /** Write to stdout. */
  out(text: string): void;
  /** Write to stderr. */
  err(text: string): void;
}

function contextFor(plugin: Plugin, io: CliHost, done: (code: number) => void): PluginCliContext {
  return {
    out: (t) => io.out(t),
    err: (t) => io.err(t),
    done,
    async workspace(o) {
      const { ws, stateDir } = await openWorkspace(o);
      const cfg = pluginsOf(ws);
      return {
        root: ws.root,
        stateDir,
        config: Object.freeze(structuredClone(cfg.configs[plugin.name] ?? {})),
        enabled: cfg.enable.includes(plugin.name),
      };
    },
  };
}

/**
 * Every first-party plugin's subcommands (or those of `plugins`), in plugin order.
 *
 * @example
 * ```ts
 * import { pluginCliCommands } from "./cli.ts";
 * // for (const c of pluginCliCommands(io, done)) program.addCommand(c);
 * ```
 */
export function pluginCliCommands(
  io: CliHost,
  done: (code: number) => void,
  plugins: readonly Plugin[] = firstPartyPlugins(),
): Command[] {
  return plugins.flatMap((p) => p.cliCommands?.(contextFor(p, io, done)) ?? []);
}
