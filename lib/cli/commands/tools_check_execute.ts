/**
 * `tools check --execute`: run one tool in its selection's own scope with a fresh set of
 * lazy sessions (cleaned up afterwards) and report the result.
 *
 * @module
 */

import { InvocationError } from "../../errors/errors.ts";
import { checkExtensionsAndLock } from "../../extensions/readiness.ts";
import { extensionLockFor } from "../../lock/extension_lock.ts";
import { processEnv } from "../../process/env.ts";
import { type LockSection, lockSection } from "../../lock/lock_section.ts";
import type { ExtensionReadiness } from "../../extensions/extension_server.ts";
import {
  findTool,
  type Selection,
  type SelectionSpec,
  selectTools,
} from "../../registry/selection.ts";
import type { Protector } from "../../redact/types.ts";
import type { ToolResult } from "../../results/types.ts";
import type { Workspace } from "../../workspace/types.ts";
import { parseArgsOption } from "../common_options.ts";
import { withRegistry } from "../run_with_registry.ts";

/** The outcome of an executed check. */
export interface ExecuteOutcome {
  /** JSON report printed on stdout. */
  report: {
    tool: string;
    audience: string;
    result: ToolResult;
    extensions?: ExtensionReadiness[];
    extensionLock?: LockSection;
    ready: boolean;
  };
  /** Success. */
  ok: boolean;
}

/**
 * The published name `--tool` names. An eval's extension tools (`<tool>_<extension>`) are
 * not in the selection: their name goes to the registry as given, which routes it to the
 * extension's server or refuses it with the selection's own UNKNOWN_TOOL error.
 */
function publishedName(sel: Selection, toolName: string, spec: SelectionSpec): string {
  try {
    return findTool(sel, toolName, "artifact" in spec).name;
  } catch (e) {
    if ("eval" in spec && e instanceof InvocationError && e.code === "UNKNOWN_TOOL") {
      return toolName;
    }
    throw e;
  }
}

/**
 * Run one tool for `tools check --execute`. With `--artifact`, the short name or the
 * published name is accepted; with an eval, the published name.
 *
 * @example
 * ```ts
 * import { executeCheck } from "./tools_check_execute.ts";
 * // await executeCheck(ws, { eval: "app/review" }, "read_app", '{"path":"README.md"}', stateDir)
 * ```
 */
export async function executeCheck(
  ws: Workspace,
  spec: SelectionSpec,
  toolName: string,
  rawArgs: string | undefined,
  stateDir: string,
  lock = true,
  stderr?: (chunk: Uint8Array) => void,
): Promise<ExecuteOutcome> {
  const sel = selectTools(ws, spec);
  if (sel.audience === "human" && rawArgs !== undefined) {
    throw new InvocationError(
      "--args is valid only for agent tools; human tools take no arguments",
    );
  }
  const name = publishedName(sel, toolName, spec);
  const args = parseArgsOption(rawArgs);
  let protect: Protector | undefined; // the registry's protected values, for the lock lines
  const result = await withRegistry(
    ws,
    spec,
    { stateDir, audience: sel.audience, lock, stderr },
    (reg, signal) => {
      protect = reg.plugins.redactor;
      return reg.call(name, args, { signal });
    },
  );
  // Extensions are checked against the eval's toolhost.lock entry too.
  const lockCheck = lock && "eval" in spec
    ? await extensionLockFor(ws, spec.eval, processEnv())
    : undefined;
  const ext = "eval" in spec
    ? await checkExtensionsAndLock(ws, spec.eval, { lock: lockCheck })
    : { readiness: [], drift: [] };
  const extensions = ext.readiness;
  // Names in these lines come from the lock and the servers' listings: redacted.
  const extensionLock = lockCheck
    ? lockSection(ext.drift, [], protect === undefined ? [] : [protect])
    : undefined;
  const extensionsOk = extensions.every((e) => e.toolsListed) &&
    extensionLock?.status !== "drift";
  const ok = !result.isError && extensionsOk;
  return {
    report: {
      tool: name,
      audience: sel.audience,
      result,
      ...(extensions.length > 0 ? { extensions } : {}),
      ...(extensionLock && extensions.length > 0 ? { extensionLock } : {}),
      ready: ok,
    },
    ok,
  };
}
