/**
 * `openConfine`: the {@link Confine} of one confined declaration's runs, or why it cannot
 * be confined here (fail closed: the caller refuses to run it). The one place that turns
 * a policy, its context and the host's support into bubblewrap command lines.
 *
 * @module
 */

import { readlinkSync } from "node:fs";
import type { Confine } from "../process/sandbox_init.ts";
import { createdAnchorsMessage, settleAnchors } from "./anchor_watch.ts";
import {
  type BindOpener,
  sandboxCommand,
  type SandboxPlan,
  type SandboxRun,
} from "./bwrap_argv.ts";
import { symlinkedPath, writablePaths } from "./bind_sources.ts";
import { openBindSources, symlinkRefusal } from "./bind_open.ts";
import { sandboxSupport } from "./detect.ts";
import { type PlanContext, sandboxPlan } from "./plan.ts";
import type { SandboxPolicy } from "./policy.ts";

/** A declaration's confinement, as a run needs it. */
export interface Confinement {
  /** The policy in effect (a confined mode; `host` never reaches here). */
  policy: SandboxPolicy;
  /** The registry's state directory (hidden inside). */
  stateDir: string;
  /** Further writable paths of every run (a session dir, the registry's artifact dir). */
  writable?: string[];
  /**
   * Join the network namespace of the sandbox whose init has this host PID (bound
   * calls reach their harness's loopback). Default: a network namespace of its own.
   */
  joinNetOf?: number;
  /** Most bytes each of the private `/tmp` and `/dev/shm` hold (`max_memory_mb`). */
  tmpfsBytes?: number;
}

/** A {@link Confine}, or why confinement is unavailable. */
export type ConfineOutcome = { ok: true; confine: Confine } | { ok: false; reason: string };

function nsLink(pid: number | "self", ns: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/${ns}`);
  } catch {
    return undefined;
  }
}

/**
 * The confinement of one declaration's runs in context `ctx`, or the reason (naming the
 * fix) it is unavailable here.
 *
 * @example
 * ```ts
 * import { openConfine } from "./confine.ts";
 * import { loadWorkspaceSync } from "../workspace/load_workspace.ts";
 * const ws = loadWorkspaceSync("examples");
 * const c = openConfine(
 *   { policy: { mode: "none", network: false, read: [], write: [] }, stateDir: "/tmp/s" },
 *   { ws, scope: [], executionPaths: [] },
 * );
 * console.log(c.ok || c.reason);
 * ```
 */
export function openConfine(
  c: Confinement,
  ctx: Omit<PlanContext, "stateDir">,
): ConfineOutcome {
  const support = sandboxSupport();
  if (!support.ok) return { ok: false, reason: support.reason };
  let join: SandboxRun["joinNetOf"];
  if (c.joinNetOf !== undefined) {
    if (support.nsenter === undefined) {
      return {
        ok: false,
        reason:
          "`nsenter` (util-linux) was not found; bound calls of a confined session need it to join the session's network",
      };
    }
    const user = nsLink(c.joinNetOf, "user");
    if (user === undefined) return { ok: false, reason: "the session's sandbox has ended" };
    join = { pid: c.joinNetOf, nsenter: support.nsenter, user: user !== nsLink("self", "user") };
  }
  const plan = sandboxPlan(c.policy, { ...ctx, stateDir: c.stateDir });
  if (c.tmpfsBytes !== undefined) plan.tmpfsBytes = c.tmpfsBytes;
  const extra = c.writable ?? [];
  return {
    ok: true,
    confine: {
      wrap(command, args, cwd, writable, key) {
        const run = { command, args, cwd, writable: [...extra, ...writable], joinNetOf: join };
        if (key === true) return sandboxCommand(support.bwrap, plan, run);
        return sandboxCommand(support.bwrap, plan, run, bindOpener(plan, ctx, run.writable));
      },
      settle() {
        const created = settleAnchors(ctx.ws.root, plan.watch ?? []);
        return created.length === 0 ? undefined : createdAnchorsMessage(created);
      },
    },
  };
}

/**
 * The opener of this run's bind sources (bind_open.ts), after refusing a hidden path that
 * runs through a symlink below the workspace, a path this run may write or one another
 * declaration may write (bind_sources.ts). The program and its interpreter were resolved
 * by their lookup and are pinned: they are opened as they resolve.
 */
function bindOpener(
  plan: SandboxPlan,
  ctx: Omit<PlanContext, "stateDir">,
  runWritable: readonly string[],
): BindOpener {
  const guarded = [ctx.ws.root, ...plan.writable, ...runWritable, ...writablePaths(ctx.ws)];
  if (symlinkedPath(plan.hidden.map((h) => h.path), guarded) !== undefined) {
    throw symlinkRefusal();
  }
  const exempt = new Set([ctx.program, plan.interpreter]);
  return (paths) => openBindSources(paths, guarded, exempt);
}

/**
 * The refusal text of a confined declaration that cannot be confined here.
 *
 * @example
 * ```ts
 * import { unconfinableMessage } from "./confine.ts";
 * unconfinableMessage("bubblewrap (`bwrap`) was not found");
 * ```
 */
export function unconfinableMessage(reason: string): string {
  return `It declares confinement that is unavailable on this host (${reason}); it was not run unconfined. See \`toolhost tools check\`.`;
}
