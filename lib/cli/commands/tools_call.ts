/**
 * `toolhost tools call TOOL --eval E --args JSON`: call one tool and print its normalized
 * ToolResult as JSON. Exit 0 for a success result, 1 for an error result, 2 for a bad
 * invocation.
 *
 * @module
 */

import { Command } from "commander";
import {
  type CommonOptions,
  missingEvalError,
  openWorkspace,
  parseArgsOption,
  requireAgentEval,
  withCommon,
} from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";
import { withRegistry } from "../run_with_registry.ts";
import { STDERR_HELP, stderrCopy } from "../stderr_copy.ts";
import { warnLockDisabled } from "../../lock/open_lock.ts";
import { isArtifactToolName } from "../../artifacts/specs.ts";
import { InvocationError } from "../../errors/errors.ts";

/** Said on stderr after an error result without `--stderr`: where the reason may be. */
const STDERR_HINT = "toolhost: the result is an error; if it does not say why, run again with " +
  "--stderr to see what the tool (and its session's harness) printed to stderr\n";

/**
 * Build the `tools call` command.
 *
 * @example
 * ```ts
 * import { processIo } from "../exit.ts";
 * import { toolsCallCommand } from "./tools_call.ts";
 * toolsCallCommand(processIo, () => {});
 * ```
 */
export function toolsCallCommand(io: CliIo, done: (code: number) => void): Command {
  const cmd = new Command("call")
    .description(
      "Call one tool of an agent eval and print its result as JSON: " +
        '{"content":[...],"isError":false}. Exit 0 success, 1 error result, 2 bad invocation.',
    )
    .argument("<tool>", "published tool name, e.g. read_app")
    .option("--eval <eval>", "the agent eval, e.g. app/review (required)")
    .option("--args <json>", "JSON object of arguments (default {})")
    .option("--no-lock", "skip toolhost.lock verification (development only; warns loudly)")
    .option("--stderr", STDERR_HELP)
    .addHelpText(
      "after",
      `\nExample:\n  toolhost tools call read_app --eval app/review --args '{"path":"README.md"}'\n`,
    );
  withCommon(cmd).action(
    async (
      tool: string,
      o: CommonOptions & { eval?: string; args?: string; lock?: boolean; stderr?: boolean },
    ) => {
      if (o.eval === undefined) {
        throw await missingEvalError(o, true);
      }
      const args = parseArgsOption(o.args);
      const { ws, stateDir } = await openWorkspace(o);
      requireAgentEval(ws, o.eval, "tools call");
      if (isArtifactToolName(tool)) {
        throw new InvocationError(
          `\`${tool}\` reads the artifacts earlier calls of the same MCP connection returned, ` +
            "so it is served by `toolhost serve`; `tools call` runs one call on its own",
          "UNKNOWN_TOOL",
        );
      }
      if (o.lock === false) warnLockDisabled((l) => io.err(l));
      const opts = { stateDir, lock: o.lock !== false, stderr: stderrCopy(io, o.stderr) };
      let builtin = false; // a built-in runs no program: it has no stderr to show
      const result = await withRegistry(ws, { eval: o.eval }, opts, (reg, signal) => {
        builtin = reg.tool(tool).decl.type === "builtin";
        return reg.call(tool, args, { signal });
      });
      io.out(`${JSON.stringify(result)}\n`);
      if (result.isError && !o.stderr && !builtin) io.err(STDERR_HINT);
      done(result.isError ? EXIT.failure : EXIT.ok);
    },
  );
  return cmd;
}
