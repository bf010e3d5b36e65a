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

/**
 * Said on stderr after an error result without `--stderr` when the tool or its session's
 * harness printed to stderr: where the reason may be. A call that printed nothing there (a
 * built-in, arguments refused by the schema, a lock mismatch, a command not found, a tool
 * that wrote nothing) gets no hint: `--stderr` would show nothing.
 */
function stderrHint(bytes: number): string {
  return `toolhost: the result is an error; the tool (or its session's harness) printed ${bytes} ` +
    "byte(s) to stderr, not shown: run again with --stderr to see them\n";
}

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
      // Without --stderr, stderr is only counted: a hint is worth giving only when it holds something.
      let unseen = 0;
      const count = (chunk: Uint8Array) => void (unseen += chunk.byteLength);
      const opts = { stateDir, lock: o.lock !== false, stderr: stderrCopy(io, o.stderr) ?? count };
      const result = await withRegistry(ws, { eval: o.eval }, opts, (reg, signal) => {
        return reg.call(tool, args, { signal });
      });
      io.out(`${JSON.stringify(result)}\n`);
      if (result.isError && unseen > 0) io.err(stderrHint(unseen));
      done(result.isError ? EXIT.failure : EXIT.ok);
    },
  );
  return cmd;
}
