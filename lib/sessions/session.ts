/**
 * One tool session of one registry: lazily started by its first bound call, reused by
 * later ones, ended by its start process's exit, and stopped and cleaned up by `close()`.
 *
 * Phases: `idle` (nothing exists) → `starting` → `ready` → `ended` (start exited) →
 * `closing` → `closed`; or `starting` → `failed` (sticky startup error, already cleaned).
 *
 * @module
 */

import { CleanupFailed } from "../errors/errors.ts";
import { terminateGroup } from "../process/kill_group.ts";
import type { ProcessRecord } from "../process/proc_identity.ts";
import type { GroupHandle } from "../process/spawn_group.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { SessionDecl } from "../workspace/types.ts";
import { prepareInvocation, type SessionScope } from "./invocation.ts";
import { runStop, type StopOutcome } from "./stop.ts";
import { Journal } from "./journal.ts";
import { type ResolvedOptions, sessionEnv } from "./options.ts";
import { joinSafetyNet, leaveSafetyNet, type NetMember } from "./safety_net.ts";
import {
  createSessionRoot,
  releaseLease,
  removeSessionRoot,
  type SessionRoot,
} from "./session_dir.ts";
import { readinessFailure, releaseStartStreams, spawnStart, type StartSandbox } from "./startup.ts";
import { type Confinement, openConfine, unconfinableMessage } from "../sandbox/confine.ts";
import { confinementOf } from "../sandbox/confinement_of.ts";
import { sandboxInitPid } from "../process/sandbox_init.ts";
import { HarnessLimits } from "../limits/harness_limits.ts";
import { sharedSweep } from "./shared_sweep.ts";
import { raceStartup } from "./race_startup.ts";
import type { BoundRun, Gate, SessionPhase } from "./session_types.ts";

export type { StopOutcome } from "./stop.ts";
export type { BoundRun, Gate, SessionPhase } from "./session_types.ts";

const ENDED = "toolhost:session-ended";

/**
 * A lazily started tool session (see the module documentation).
 *
 * @example
 * ```ts
 * import { ToolSession } from "./session.ts";
 * import { resolveOptions } from "./options.ts";
 * // const s = new ToolSession(decl, "app", stateDir, resolveOptions());
 * // const gate = await s.ready(scope, signal, Date.now() + 120000, 120000);
 * // await s.close();
 * ```
 */
export class ToolSession implements NetMember {
  /** Declared session name. */
  readonly name: string;
  /** Declaring Artifact. */
  readonly artifactId: string;
  #decl: SessionDecl;
  #stateDir: string;
  #opts: ResolvedOptions;
  #phase: SessionPhase = "idle";
  #failure = "";
  #scope?: SessionScope;
  #startup?: Promise<void>;
  #startupAbort = new AbortController();
  #root?: SessionRoot;
  #journal?: Journal;
  #start?: GroupHandle;
  #startRetired = false;
  #stopNeeded = false;
  #inflight = new Map<AbortController, Promise<unknown>>();
  #ending?: Promise<void>;
  #closing?: Promise<void>;
  #stopOutcome: StopOutcome = "not run";
  #limits: HarnessLimits; // the harness's resource limits
  #confinement?: Confinement; // the session's sandbox policy, when confined
  // Moves aside a trust anchor its harness created since it started (anchor_watch.ts).
  #settleAnchors?: () => string | undefined;

  /** Create an idle session: no directory, no process. */
  constructor(decl: SessionDecl, artifactId: string, stateDir: string, opts: ResolvedOptions) {
    this.name = decl.name;
    this.artifactId = artifactId;
    this.#decl = decl;
    this.#stateDir = stateDir;
    this.#opts = opts;
    this.#limits = new HarnessLimits(decl.limits);
  }

  /** Current phase. */
  get phase(): SessionPhase {
    return this.#phase;
  }

  /** The private session directory, once it exists. */
  get sessionDir(): string | undefined {
    return this.#root?.dir;
  }

  /** How the stop command went (`not run` until close). */
  get stopOutcome(): StopOutcome {
    return this.#stopOutcome;
  }

  /** The session root (safety net). */
  root(): string | undefined {
    return this.#root?.root;
  }

  /** Admitted groups not yet retired (safety net, tests). */
  liveGroups(): ProcessRecord[] {
    return this.#journal?.live().map((e) => e.record) ?? [];
  }

  #ended(): { ok: false; result: ToolResult } {
    return { ok: false, result: errorResult(this.#limits.endedMessage(this.name)) };
  }

  #gate(): Gate | undefined {
    switch (this.#phase) {
      case "ready":
        return { ok: true };
      case "failed":
        return { ok: false, result: errorResult(this.#failure) };
      case "ended":
      case "closing":
      case "closed":
        return this.#ended();
      default:
        return undefined;
    }
  }

  /**
   * Wait until the session is ready, starting it on first use. Waiting ends early (for
   * this call only) when `signal` aborts or `deadlineAt` passes; the start keeps going.
   */
  async ready(
    scope: SessionScope,
    signal: AbortSignal | undefined,
    deadlineAt: number,
    timeoutMs: number,
  ): Promise<Gate> {
    const now = this.#gate();
    if (now !== undefined) return now;
    if (this.#phase === "idle") {
      this.#phase = "starting";
      this.#scope = scope;
      this.#startup = this.#launch(scope).catch(() =>
        this.#fail(`The tool session \`${this.name}\` could not start: an internal error occurred.`)
      );
    }
    const waited = await raceStartup(this.#startup!, signal, deadlineAt);
    if (waited === "cancelled") {
      const text = `The call was cancelled while the tool session \`${this.name}\` was starting.`;
      return { ok: false, result: errorResult(text) };
    }
    if (waited === "timeout") {
      return { ok: false, result: errorResult(this.deadlineMessage(timeoutMs)) };
    }
    return this.#gate() ?? this.#ended();
  }

  /** The error of a call whose deadline passed while its session was starting. */
  deadlineMessage(timeoutMs: number): string {
    return `The tool session \`${this.name}\` was not ready within the call's deadline of ${timeoutMs} ms ` +
      "(its start command prints one line on stdout once ready; a slow start needs a larger " +
      "timeout_ms on the bound tool).";
  }

  async #launch(s: SessionScope): Promise<void> {
    joinSafetyNet(this);
    const swept = await sharedSweep(this.#stateDir, this.#opts.sweep)
      .catch(() => ({ failed: 1 }));
    if (swept.failed > 0) {
      return await this.#fail(
        `The tool session \`${this.name}\` was refused: earlier tool sessions or calls in the state directory could not be cleaned up; run \`toolhost sweep\` and end the processes it reports.`,
      );
    }
    const cannot = (why: string) =>
      this.#fail(`The tool session \`${this.name}\` could not start: ${why}.`);
    if (this.#startupAbort.signal.aborted) return;
    try {
      this.#root = await createSessionRoot(this.#stateDir);
      this.#journal = Journal.open(this.#root.journalPath);
    } catch {
      return await cannot(
        "its private session directory could not be prepared in the state directory",
      );
    }
    if (this.#startupAbort.signal.aborted) return;
    const root = this.#root;
    const prep = prepareInvocation(s, this.#decl.start, {
      outputDir: root.startOutput,
      tmpDir: root.startTmp,
    }, root.dir);
    if (!prep.ok) return await cannot(prep.reason);
    const sandbox = this.#sandbox(s, root, prep.invocation.command);
    if (typeof sandbox === "string") return await this.#fail(sandbox);
    const refused = await this.#limits.open();
    if (refused !== undefined) return await this.#fail(refused);
    const abort = this.#startupAbort.signal;
    const guard = this.#limits.guard;
    const copy = { stderr: this.#opts.stderr };
    const spawned = await spawnStart(prep.invocation, this.#journal, abort, guard, sandbox, copy);
    if (!spawned.ok) return await cannot(spawned.reason);
    this.#start = spawned.handle;
    this.#stopNeeded = true;
    this.#limits.watch(spawned.handle.record, spawned.handle.tag);
    const r = await spawned.readiness;
    if (r.kind === "aborted") return;
    if (r.kind !== "ready") {
      const hit = await this.#limits.failure(r.kind === "exited" ? r.status : null);
      return await cannot(hit ?? readinessFailure(r));
    }
    if (this.#phase !== "starting") return;
    this.#phase = "ready";
    spawned.handle.exited.then(() => this.#onStartExit());
  }

  /** The start command's sandbox, undefined when unconfined, or the refusal text. */
  #sandbox(s: SessionScope, root: SessionRoot, program: string): StartSandbox | string | undefined {
    const { confinement } = confinementOf(this.#decl, this.#stateDir, [root.dir]);
    if (confinement === undefined) return undefined;
    const c = openConfine(confinement, {
      ws: s.ws,
      scope: s.scope,
      owner: s.artifact.id,
      executionPaths: this.#decl.start.executionPaths,
      program,
      path: s.env.PATH,
    });
    if (!c.ok) {
      return `The tool session \`${this.name}\` was refused. ${unconfinableMessage(c.reason)}`;
    }
    this.#confinement = confinement;
    this.#settleAnchors = () => c.confine.settle?.();
    return { confine: c.confine, writable: [root.startOutput, root.startTmp] };
  }

  /** The session's confinement, joined to the harness's network while it runs. */
  #joined(): Confinement | undefined {
    const c = this.#confinement;
    if (c === undefined || c.policy.network || this.#start === undefined) return c;
    const pid = sandboxInitPid(this.#start.record);
    return pid === undefined ? c : { ...c, joinNetOf: pid };
  }

  /** Startup failed: remember the error (sticky) and clean up at once. */
  async #fail(message: string): Promise<void> {
    this.#failure = message;
    this.#stopNeeded = false;
    if (this.#phase === "starting") this.#phase = "failed";
    await this.#reap(this.#opts.graceMs).catch(() => []);
  }

  #onStartExit(): void {
    if (this.#phase !== "ready") return;
    this.#phase = "ended";
    for (const c of this.#inflight.keys()) c.abort(ENDED);
    const start = this.#start!;
    this.#ending = start.terminate({ graceMs: 0 }).then((rep) => {
      releaseStartStreams(start); // an escaped descendant must not hold this process
      if (!rep.confirmed) return; // the final cleanup retries and reports it
      this.#startRetired = true;
      this.#journal?.retire(start.record);
    });
  }

  /**
   * Run one bound call inside the ready session. The call is cancelled when the caller
   * aborts, when the start process exits (then it returns the session-ended error) and
   * when the session closes.
   */
  async run(
    fn: (b: BoundRun) => Promise<ToolResult>,
    callerSignal?: AbortSignal,
  ): Promise<ToolResult> {
    const gate = this.#gate();
    if (gate === undefined) return this.#ended().result;
    if (!gate.ok) return gate.result;
    // What the harness created between calls is moved aside before a call binds it.
    const before = this.#settleAnchors?.();
    if (before !== undefined) return errorResult(before);
    const journal = this.#journal!;
    const root = this.#root!;
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(callerSignal?.reason);
    callerSignal?.addEventListener("abort", onAbort, { once: true });
    if (callerSignal?.aborted) onAbort();
    const p = fn({
      env: sessionEnv(root.dir),
      signal: ctl.signal,
      callsDir: root.root,
      hooks: { onSpawn: (r) => journal.admit("call", r), onSettled: (r) => journal.retire(r) },
      confinement: this.#joined(),
    });
    this.#inflight.set(ctl, p);
    try {
      const result = await p;
      const created = this.#settleAnchors?.();
      if (created !== undefined) return errorResult(created);
      if (!ctl.signal.aborted || ctl.signal.reason !== ENDED) return result;
      // The session ended under this call: its end is reported once the harness's
      // processes are ended, not while they are still being torn down.
      await this.#ending?.catch(() => {});
      return this.#ended().result;
    } finally {
      this.#inflight.delete(ctl);
      callerSignal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Stop and clean up: cancel and await in-flight calls, run stop (own cancellation,
   * bounded), end every recorded group and confirm via `/proc`, then remove the root.
   * Idempotent; rejects with `CleanupFailed` when cleanup could not be confirmed (the
   * journal is then kept and the lease released for a later sweep).
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  async #close(): Promise<void> {
    if (this.#phase === "idle") {
      this.#phase = "closed";
      return;
    }
    this.#phase = "closing";
    this.#startupAbort.abort();
    await this.#startup?.catch(() => {});
    for (const c of this.#inflight.keys()) c.abort(ENDED);
    await Promise.allSettled(this.#inflight.values());
    await this.#ending;
    if (this.#stopNeeded) await this.#runStop();
    const problems = await this.#reap(this.#opts.graceMs);
    this.#phase = "closed";
    if (problems.length > 0) {
      throw new CleanupFailed(
        `The tool session \`${this.name}\` was not cleaned up: ${
          problems.join("; ")
        }. Run \`toolhost sweep\` to finish.`,
      );
    }
    const created = this.#settleAnchors?.();
    if (created !== undefined) {
      throw new CleanupFailed(`The tool session \`${this.name}\`: ${created}`);
    }
  }

  async #runStop(): Promise<void> {
    const root = this.#root;
    const journal = this.#journal;
    if (root === undefined || journal === undefined || this.#scope === undefined) return;
    // A stop command whose pinned files changed is not run; the harness group is ended.
    if (this.#opts.beforeStop && !(await this.#opts.beforeStop(this.artifactId, this.name))) return;
    this.#stopOutcome = await runStop({
      scope: this.#scope,
      command: this.#decl.stop,
      root,
      journal,
      timeoutMs: this.#opts.stopTimeoutMs,
      graceMs: this.#opts.graceMs,
      confinement: this.#joined(),
      onStderr: this.#opts.stderr,
    });
  }

  /** End every owned group, then remove the root; returns value-free problems. */
  async #reap(graceMs: number): Promise<string[]> {
    const problems: string[] = [];
    const journal = this.#journal;
    const start = this.#start;
    if (start !== undefined && !this.#startRetired) {
      const rep = await start.terminate({ graceMs });
      if (rep.confirmed) {
        this.#startRetired = true;
        journal?.retire(start.record);
      }
    }
    // Nothing more is read from the harness: a descendant that left its group (setsid)
    // while holding its stdout or stderr must not keep this process alive.
    if (start !== undefined) releaseStartStreams(start);
    await this.#limits.settle(start?.exitStatus);
    const live = journal?.live() ?? [];
    const reports = await Promise.all(live.map((e) => terminateGroup(e.record, { graceMs })));
    for (let i = 0; i < live.length; i++) {
      if (reports[i].confirmed) journal!.retire(live[i].record);
    }
    const unconfirmed = reports.filter((r) => !r.confirmed).length;
    if (unconfirmed > 0) {
      problems.push(`${unconfirmed} of its process groups could not be confirmed gone`);
    }
    try {
      journal?.close();
    } catch {
      // Closing a journal cannot lose data: every admission was synced.
    }
    const root = this.#root;
    if (root !== undefined && problems.length === 0) {
      try {
        await removeSessionRoot(root.root);
        this.#root = undefined;
      } catch {
        problems.push("its directory could not be removed");
      }
    }
    if (root !== undefined && problems.length > 0) await releaseLease(root.root).catch(() => {});
    if (problems.length === 0) leaveSafetyNet(this);
    return problems;
  }
}
