/**
 * The resource limits of a tool session's harness (its start command and everything it starts,
 * for the session's whole life): opened before the start command is spawned, watched
 * while it runs, and settled when the session is reaped. A breach ends the session —
 * there is no restart — and later calls say which limit ended it.
 *
 * @module
 */

import type { GuardExit, GuardLimit, RunGuard } from "../process/run_guard.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import { openGuard, unenforceableMessage } from "./guard.ts";
import { hasLimits, limitMessage, type ResourceLimits } from "./types.ts";
import { sessionEndedMessage } from "../sessions/options.ts";

const NO_EXIT: GuardExit = { exitCode: null, signal: null };

/**
 * One session's harness limits (a no-op when none are declared).
 *
 * @example
 * ```ts
 * import { HarnessLimits } from "./harness_limits.ts";
 * const l = new HarnessLimits({ maxMemoryMb: 512 });
 * const refused = await l.open(); // undefined when enforceable
 * // spawn with l.guard, then l.watch(record); ... await l.settle(status);
 * ```
 */
export class HarnessLimits {
  readonly #limits?: ResourceLimits;
  #guard?: RunGuard;
  #hit?: GuardLimit;

  /** Limits as declared on the session table (or none). */
  constructor(limits: ResourceLimits | undefined) {
    this.#limits = limits;
  }

  /** The guard for the start command, once opened. */
  get guard(): RunGuard | undefined {
    return this.#guard;
  }

  /** Open the guard; resolves to the refusal text when the limits cannot be enforced. */
  async open(): Promise<string | undefined> {
    if (!hasLimits(this.#limits)) return undefined;
    const g = await openGuard(this.#limits);
    if (!g.ok) return unenforceableMessage(g.reason);
    this.#guard = g.guard;
    return undefined;
  }

  /** Watch the spawned harness group and everything it starts (`tag`: its group tag). */
  watch(record: ProcessRecord, tag?: string): void {
    this.#guard?.watch(record, (kind) => (this.#hit ??= kind), tag);
  }

  /** Settle (idempotent): stop watching, release the cgroup, remember a breach. */
  async settle(exit: GuardExit | null = NO_EXIT): Promise<GuardLimit | undefined> {
    const hit = await this.#guard?.settle(exit ?? NO_EXIT);
    if (hit) this.#hit ??= hit;
    return this.#hit;
  }

  /** `resource limit: KIND (KEY = N)` when a limit ended the harness, else undefined. */
  async failure(exit: GuardExit | null): Promise<string | undefined> {
    const hit = this.#hit ?? await this.settle(exit);
    return hit ? limitMessage(hit, this.#limits) : undefined;
  }

  /** The session-ended text: ``The tool session `NAME` ended`` and, if so, which limit. */
  endedMessage(name: string): string {
    if (!this.#hit) return sessionEndedMessage(name);
    return `The tool session \`${name}\` ended: ${limitMessage(this.#hit, this.#limits)}.`;
  }
}
