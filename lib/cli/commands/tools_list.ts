/**
 * `toolhost tools list --eval E`: the tools an eval publishes.
 *
 * @module
 */

import { Command } from "commander";
import { InvocationError } from "../../errors/errors.ts";
import { selectTools } from "../../registry/selection.ts";
import { listTools } from "../../registry/registry.ts";
import { evalExtensions } from "../../workspace/parse_extensions.ts";
import { type CommonOptions, openWorkspace, withCommon } from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";

/**
 * Build the `tools list` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { toolsListCommand } from "./tools_list.ts";
 * toolsListCommand(processIo, () => {});
 * ```
 */
export function toolsListCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("list")
    .description("List the tools an eval publishes (names, descriptions, input schemas).")
    .option("--eval <eval>", "eval to list, e.g. app/review (required)")
    .option("--json", "print JSON instead of text")
    .addHelpText("after", "\nExample:\n  toolhost tools list --eval app/review --json\n");
  withCommon(cmd).action(async (o: CommonOptions & { eval?: string }) => {
    if (o.eval === undefined) {
      throw new InvocationError("--eval is required, e.g. --eval app/review");
    }
    const { ws } = await openWorkspace(o);
    const sel = selectTools(ws, { eval: o.eval });
    const tools = listTools(sel);
    // Extension servers are not started to list (listing runs no owner code); name them.
    const extensions = sel.evalId === undefined
      ? []
      : evalExtensions(ws, sel.evalId).map((d) => d.name);
    if (o.json) {
      const out = { eval: sel.evalId, audience: sel.audience, tools, extensions };
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      io.out(`${sel.evalId} (${sel.audience}): ${tools.length} tool(s)\n`);
      for (const t of tools) io.out(`  ${t.name.padEnd(28)} ${t.description.split("\n")[0]}\n`);
      if (extensions.length > 0) {
        io.out(
          `  + the tools of extension(s) ${extensions.join(", ")}, named <tool>_<extension>; ` +
            "not started to list: see them with `toolhost tools check --execute` or `serve`\n",
        );
      }
    }
    done(EXIT.ok);
  });
  return cmd;
}
