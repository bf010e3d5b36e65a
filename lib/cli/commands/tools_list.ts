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
import { ExtensionHost } from "../../extensions/host.ts";
import { extensionLockFor } from "../../lock/extension_lock.ts";
import { processEnv } from "../../process/env.ts";
import type { ToolListing } from "../../registry/registry.ts";
import type { Workspace } from "../../workspace/types.ts";
import {
  type CommonOptions,
  missingEvalError,
  openWorkspace,
  withCommon,
} from "../common_options.ts";
import { type CliIo, EXIT } from "../exit.ts";

/** `tools list`'s options. */
type ListOptions = CommonOptions & { eval?: string };

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
    .argument("[eval]", "eval to list, e.g. app/review (same as --eval)")
    .option("--eval <eval>", "eval to list, e.g. app/review (required unless given as [eval])")
    .option("--json", "print JSON instead of text")
    .addHelpText(
      "after",
      "\nExamples:\n  toolhost tools list app/review\n  toolhost tools list --eval app/review --json\n",
    );
  withCommon(cmd).action(async (positional: string | undefined, o: ListOptions) => {
    if (positional !== undefined && o.eval !== undefined) {
      throw new InvocationError(
        "give the eval either as a positional selector or with --eval, not both",
      );
    }
    o.eval ??= positional;
    if (o.eval === undefined) {
      throw await missingEvalError(o, false);
    }
    const { ws } = await openWorkspace(o);
    const sel = selectTools(ws, { eval: o.eval });
    const tools = listTools(sel);
    // Extension servers are not started to list (listing runs no owner code): their tools
    // are shown from a current toolhost.lock; the rest are only named.
    const extensions = sel.evalId === undefined
      ? []
      : evalExtensions(ws, sel.evalId).map((d) => d.name);
    const fromLock = sel.evalId === undefined || extensions.length === 0
      ? { tools: [], unlisted: [] }
      : await lockedExtensionTools(ws, sel.evalId, new Set(tools.map((t) => t.name)));
    if (o.json) {
      const out = {
        eval: sel.evalId,
        audience: sel.audience,
        tools,
        extensions,
        extensionTools: fromLock.tools,
      };
      io.out(`${JSON.stringify(out, null, 2)}\n`);
    } else {
      const count = tools.length + fromLock.tools.length;
      io.out(`${sel.evalId} (${sel.audience}): ${count} tool(s)\n`);
      for (const t of tools) io.out(`  ${t.name.padEnd(28)} ${t.description.split("\n")[0]}\n`);
      for (const t of fromLock.tools) {
        io.out(
          `  ${t.name.padEnd(28)} [extension ${t.extension}] ${t.description.split("\n")[0]}\n`,
        );
      }
      if (fromLock.unlisted.length > 0) {
        io.out(
          `  + the tools of extension(s) ${
            fromLock.unlisted.join(", ")
          }, named <tool>_<extension>; ` +
            "not started to list and not in a current toolhost.lock: run `toolhost lock` " +
            "(it starts them once and records their tools), then list again; " +
            "`tools call <tool>_<extension>` and `serve` call them\n",
        );
      }
    }
    done(EXIT.ok);
  });
  return cmd;
}

/** An extension tool as `tools list` shows it. */
interface ExtensionToolListing extends ToolListing {
  /** The extension it comes from. */
  extension: string;
}

/**
 * The extension tools a current lock lists (no server is started), and the extensions
 * it cannot list (no lock, an entry without listings, or a declaration that changed).
 */
async function lockedExtensionTools(
  ws: Workspace,
  evalId: string,
  reserved: ReadonlySet<string>,
): Promise<{ tools: ExtensionToolListing[]; unlisted: string[] }> {
  const env = processEnv();
  const names = evalExtensions(ws, evalId).map((d) => d.name);
  let lock;
  try {
    lock = await extensionLockFor(ws, evalId, env);
  } catch {
    lock = undefined; // an unusable lock lists nothing; calls report it
  }
  if (lock === undefined) return { tools: [], unlisted: names };
  const host = ExtensionHost.forEval(ws, evalId, { env, lock, reserved, listOnly: true });
  try {
    const listed = await host.list();
    const lazy = new Set(host.servers.filter((s) => host.isLazy(s)).map((s) => s.decl.name));
    const tools = listed.flatMap((t) => {
      const ext = [...lazy].find((n) => t.name.endsWith(`_${n}`));
      return ext === undefined ? [] : [{ ...t, extension: ext }];
    });
    return { tools, unlisted: names.filter((n) => !lazy.has(n)) };
  } finally {
    await host.close();
  }
}
