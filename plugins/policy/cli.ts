/**
 * `toolhost policy check TOOL [--args JSON]`: evaluate the workspace's policy for a call
 * without running anything. Prints `{"effect","rule","reason"}`; exit 0 allow, 1 deny.
 *
 * @module
 */

import { Command } from "commander";
import type { PluginCliContext } from "../../lib/plugins/mod.ts";
import { evaluatePolicy } from "./evaluate.ts";
import { compilePolicy } from "./rules.ts";

/**
 * Build `toolhost policy`.
 *
 * @example
 * ```ts
 * import { policyCliCommand } from "./cli.ts";
 * // program.addCommand(policyCliCommand(ctx));
 * ```
 */
export function policyCliCommand(ctx: PluginCliContext): Command {
  const policy = new Command("policy")
    .description("Inspect the policy plugin's rules.")
    .addHelpText(
      "after",
      `\nExample:\n  toolhost policy check shell_exec_app --args '{"command":"ls"}'\n`,
    );
  policy.addCommand(
    new Command("check")
      .description("Show the policy decision for a call (published tool name + arguments).")
      .argument("<tool>", "published tool name, e.g. shell_exec_app")
      .option("--args <json>", "JSON object of arguments (default {})")
      .option("--repo <dir>", "workspace root (default: nearest folder with toolhost.toml)")
      .option("--state-dir <dir>", "state directory (default: <workspace>/.toolhost/state)")
      .addHelpText(
        "after",
        `\nExample:\n  toolhost policy check shell_exec_app --args '{"command":"ls"}'\n`,
      )
      .action(async (tool: string, o: { args?: string; repo?: string; stateDir?: string }) => {
        let args: unknown = {};
        try {
          args = o.args === undefined ? {} : JSON.parse(o.args);
        } catch {
          ctx.err(`toolhost: --args must be a JSON object, e.g. --args '{"command":"ls"}'\n`);
          return ctx.done(2);
        }
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          ctx.err(`toolhost: --args must be a JSON object, e.g. --args '{"command":"ls"}'\n`);
          return ctx.done(2);
        }
        const ws = await ctx.workspace(o);
        if (!ws.enabled) {
          ctx.err(
            "toolhost: the policy plugin is not enabled in this workspace: add " +
              '`enable = ["policy"]` under `[plugins]` in toolhost.toml, and its rules under ' +
              "`[plugins.policy]`\n",
          );
          return ctx.done(1);
        }
        const compiled = compilePolicy(ws.config, () => {})!;
        const d = evaluatePolicy(compiled, tool, args);
        ctx.out(`${JSON.stringify(d)}\n`);
        ctx.done(d.effect === "allow" ? 0 : 1);
      }),
  );
  return policy;
}
