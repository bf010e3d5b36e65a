/**
 * `openGuard(limits)`: the {@link RunGuard} that enforces one call's (or one session's,
 * or one extension server's) resource limits with the enforcement in effect — a cgroup
 * v2 child group, or `prlimit` plus a watchdog — over everything the run starts (its
 * process group and every descendant that left it, see descendants.ts), kills all of it
 * on a breach, and classifies how the run ended (`memory`, `cpu`, `processes`, or none).
 *
 * Orphans adopted by toolhost (lib/process/adopted.ts, when the host made it a child
 * subreaper) carry no sign of the run they came from once they left its session and
 * dropped its tag. They are attributed fail-closed: an orphan in a live tree's session or
 * group is that tree's alone; any other belongs to every live tree whose leader started
 * no later than it — with one tree live, that one. Each such tree counts it toward its
 * limits (a tool cannot dodge them by escaping while another call runs; a call may be
 * charged for another's escapee — fail closed, never under-counted). An ending tree (its
 * call returned, or it breached) hands each such orphan, with everything below it, over to
 * the trees that could still own it, and kills it only when none is left: so no call's
 * end or breach kills a process that is counted toward a call still running, and the last
 * call that could own an orphan kills it at its end. Anything adopted still running when
 * toolhost exits is killed by the last resort.
 *
 * @module
 */

import { captureCallEvents } from "../events/call_events.ts";
import type { GuardExit, GuardLimit, RunGuard } from "../process/run_guard.ts";
import { type ProcessRecord, readProcStat } from "../process/proc_identity.ts";
import { onLastResort } from "../process/last_resort.ts";
import { CallCgroup } from "./cgroup.ts";
import { currentEnforcement, type Enforcement, watchdogIntervalMs } from "./enforcement.ts";
import { DescendantTracker, type TreeSample } from "./descendants.ts";
import { killKnown, killTreeConfirmed } from "./tree_kill.ts";
import { dataBackstopBytes, prlimitCommand } from "./rlimit.ts";
import type { ResourceLimits } from "./types.ts";
import { onOrphanReaped, type Orphan, reapAdoptedZombies } from "../process/adopted.ts";

/** A guard, or why the limits cannot be enforced here (value-free). */
export type GuardOutcome = { ok: true; guard: RunGuard } | { ok: false; reason: string };

const MIB = 1024 * 1024;

/** Periodic checks shared by both guards; `check` returns a breached limit or null. */
class Ticker {
  #timer?: ReturnType<typeof setInterval>;
  #breached: GuardLimit | null = null;

  get breached(): GuardLimit | null {
    return this.#breached;
  }

  start(check: () => GuardLimit | null, breach: (k: GuardLimit) => void): void {
    const tick = () => {
      if (this.#breached !== null) return;
      const kind = check();
      if (kind === null) return;
      this.#breached = kind;
      this.stop();
      breach(kind);
    };
    this.#timer = setInterval(tick, watchdogIntervalMs());
    tick();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function failed(exit: GuardExit): boolean {
  return exit.signal !== null || exit.exitCode !== 0;
}

/**
 * The limit a run is stopped for when its descendants cannot all be measured (more than
 * the tracking bound): processes if declared, else the first declared limit.
 */
function unmeasurable(l: ResourceLimits): GuardLimit {
  if (l.maxProcesses !== undefined) return "processes";
  return l.maxMemoryMb !== undefined ? "memory" : "cpu";
}

/** The limit a sample of the whole tree breaches, or null. */
function overLimit(l: ResourceLimits, s: TreeSample): GuardLimit | null {
  if (s.truncated) return unmeasurable(l);
  if (l.maxProcesses !== undefined && s.processes > l.maxProcesses) return "processes";
  const memory = s.rssBytes + s.heldFileBytes;
  if (l.maxMemoryMb !== undefined && memory > l.maxMemoryMb * MIB) return "memory";
  if (l.maxCpuSeconds !== undefined && s.cpuSeconds > l.maxCpuSeconds) return "cpu";
  return null;
}

/** A watched run's tracker and leader. */
interface Tree {
  tracker: DescendantTracker;
  record: ProcessRecord;
  /** Its run ended or breached: it hands shared orphans over, takes none it could share. */
  ending?: boolean;
  /** Its end was carried out: it owns no orphan any more. */
  ended?: boolean;
}

/** Trees still watched: if toolhost exits first, every known descendant is killed. */
const liveTrees = new Set<Tree>();
let lastResortInstalled = false;

function watchTree(tree: Tree): Tree {
  if (!lastResortInstalled) {
    lastResortInstalled = true;
    onLastResort(() => {
      for (const t of liveTrees) killKnown(t.tracker, t.record);
    });
    // An orphan reaped anywhere (a round, a group's end) is charged to the trees it is of.
    onOrphanReaped((o, ticks) => {
      for (const t of liveTrees) if (!t.ended) t.tracker.chargeReaped(o, ticks);
    });
  }
  liveTrees.add(tree);
  return tree;
}

/** Whether orphan `o` may be tree `t`'s (the rule in the module documentation). */
function couldOwn(t: Tree, o: Orphan): boolean {
  if (t.ended || o.startTime < (t.record.startTime ?? 0)) return false;
  if (o.sid === t.record.pid || o.pgrp === t.record.pid) return true;
  for (const u of liveTrees) {
    if (u !== t && !u.ended && (o.sid === u.record.pid || o.pgrp === u.record.pid)) return false;
  }
  return true;
}

/** Whether a tree other than `t`, still running, could own `o`. */
function sharedWithRunning(t: Tree, o: Orphan): boolean {
  for (const u of liveTrees) if (u !== t && !u.ending && couldOwn(u, o)) return true;
  return false;
}

/** What tree `t` takes in of the orphans toolhost adopted. */
function adoptsFor(t: () => Tree | undefined): (o: Orphan) => boolean {
  return (o) => {
    const tree = t();
    return tree !== undefined && couldOwn(tree, o) && !(tree.ending && sharedWithRunning(tree, o));
  };
}

/** Start ending `tree`: hand the orphans a running tree could own over to it. */
function beginEnd(tree: Tree): void {
  tree.ending = true;
  for (const a of tree.tracker.adopted()) {
    const st = readProcStat(a.pid);
    if (st === null || st.startTime !== a.startTime) continue;
    const o: Orphan = { ...a, sid: st.sid, pgrp: st.pgrp, zombie: false };
    if (sharedWithRunning(tree, o)) tree.tracker.release(a.pid, a.startTime);
  }
}

/** Kill what is left of a watched tree (confirmed), then forget it. */
async function endTree(tree: Tree | undefined): Promise<void> {
  if (tree === undefined) return;
  beginEnd(tree);
  await tree.tracker.close(); // no namespace reading outlives the run
  const whole = await killTreeConfirmed(tree.tracker, tree.record);
  tree.ended = true;
  reapAdoptedZombies(); // the orphans just killed: nobody else reaps them
  if (whole) liveTrees.delete(tree);
}

/** The tracker of a spawned group's whole tree. */
function trackerFor(
  record: ProcessRecord,
  tag: string | undefined,
  limits: ResourceLimits,
  counts?: (pid: number) => boolean,
): Tree {
  const root = { pid: record.pid, startTime: record.startTime ?? 0, tag };
  const made: { tree?: Tree } = {};
  const tracker = new DescendantTracker(root, {
    counts,
    adopts: adoptsFor(() => made.tree),
    heldFiles: limits.maxMemoryMb !== undefined,
  });
  return made.tree = { tracker, record };
}

class RlimitGuard implements RunGuard {
  readonly #limits: ResourceLimits;
  readonly #prlimit: string;
  readonly #ticker = new Ticker();
  // Who hears a breach: the listener of the call, session or extension start that opened us.
  readonly #report = captureCallEvents();
  #maxData = 0;
  #tree?: Tree;
  #settled?: Promise<GuardLimit | null>;

  constructor(limits: ResourceLimits, prlimit: string) {
    this.#limits = limits;
    this.#prlimit = prlimit;
  }

  wrap(command: string, args: readonly string[]) {
    return prlimitCommand(this.#prlimit, this.#limits, command, args);
  }

  watch(record: ProcessRecord, breach: (kind: GuardLimit) => void, tag?: string): void {
    const tree = this.#tree = watchTree(trackerFor(record, tag, this.#limits));
    const tracker = tree.tracker;
    const l = this.#limits;
    this.#ticker.start(() => {
      const s = tracker.step(l.maxProcesses);
      this.#maxData = Math.max(this.#maxData, s.maxDataBytes);
      return overLimit(l, s);
    }, (kind) => {
      beginEnd(tree);
      killKnown(tracker, record);
      void killTreeConfirmed(tracker, record); // and whatever is found after: settle waits
      breach(kind);
    });
  }

  settle(exit: GuardExit): Promise<GuardLimit | null> {
    this.#settled ??= (async () => {
      const kind = this.#classify(exit);
      await endTree(this.#tree);
      if (kind !== null) this.#report({ kind: "limit_breach", limit: kind });
      return kind;
    })();
    return this.#settled;
  }

  #classify(exit: GuardExit): GuardLimit | null {
    this.#ticker.stop();
    const l = this.#limits;
    if (this.#ticker.breached !== null) return this.#ticker.breached;
    if (l.maxCpuSeconds !== undefined && exit.signal === "SIGXCPU") return "cpu";
    // A process that failed after its data segment came near the kernel backstop ran out
    // of memory there (the watchdog did not see the resident memory pass the limit first).
    if (
      l.maxMemoryMb !== undefined && failed(exit) &&
      this.#maxData >= 0.9 * dataBackstopBytes(l.maxMemoryMb)
    ) return "memory";
    return null;
  }
}

/**
 * cgroup enforcement: the kernel counts what is in the call's group; the tracker adds
 * every descendant that moved itself out of it (a group the user may write to), and a
 * limit file the tool rewrote is a breach.
 */
class CgroupGuard implements RunGuard {
  readonly #limits: ResourceLimits;
  readonly #group: CallCgroup;
  readonly #ticker = new Ticker();
  // Who hears a breach: the listener of the call, session or extension start that opened us.
  readonly #report = captureCallEvents();
  #tree?: Tree;
  #settled?: Promise<GuardLimit | null>;

  constructor(limits: ResourceLimits, group: CallCgroup) {
    this.#limits = limits;
    this.#group = group;
  }

  wrap(command: string, args: readonly string[]) {
    return this.#group.wrap(command, args);
  }

  #check(): GuardLimit | null {
    const e = this.#group.events();
    const l = this.#limits;
    if (e.oomKills > 0) return "memory";
    if (e.pidsMax > 0) return "processes";
    const tampered = this.#group.tampered(l);
    if (tampered !== null) return tampered;
    const out = this.#tree?.tracker.step(l.maxProcesses);
    const inside = this.#group.current();
    const s: TreeSample = {
      processes: inside.pids + (out?.processes ?? 0),
      rssBytes: inside.memoryBytes + (out?.rssBytes ?? 0),
      heldFileBytes: out?.heldFileBytes ?? 0,
      maxDataBytes: 0,
      cpuSeconds: e.cpuUsec / 1e6 + (out?.cpuSeconds ?? 0),
      complete: true,
      truncated: out?.truncated ?? false,
    };
    return overLimit(l, s);
  }

  watch(record: ProcessRecord, breach: (kind: GuardLimit) => void, tag?: string): void {
    const group = this.#group;
    const tree = this.#tree = watchTree(
      trackerFor(record, tag, this.#limits, (pid) => !group.holds(pid)),
    );
    const tracker = tree.tracker;
    this.#ticker.start(() => this.#check(), (kind) => {
      beginEnd(tree);
      group.kill();
      killKnown(tracker, record);
      void killTreeConfirmed(tracker, record);
      breach(kind);
    });
  }

  settle(_exit: GuardExit): Promise<GuardLimit | null> {
    this.#settled ??= (async () => {
      this.#ticker.stop();
      const kind = this.#ticker.breached ?? this.#check();
      await endTree(this.#tree);
      await this.#group.remove();
      if (kind !== null) this.#report({ kind: "limit_breach", limit: kind });
      return kind;
    })();
    return this.#settled;
  }
}

/**
 * Open the guard for `limits` under the enforcement in effect (default: probed once per
 * process, see `currentEnforcement`). Creates the cgroup child group in cgroup mode.
 *
 * @example
 * ```ts
 * import { openGuard } from "./guard.ts";
 * const g = await openGuard({ maxProcesses: 8 });
 * if (g.ok) {
 *   const { command, args } = g.guard.wrap("/bin/echo", ["hi"]);
 *   await g.guard.settle({ exitCode: 0, signal: null });
 * }
 * ```
 */
export async function openGuard(
  limits: ResourceLimits,
  enforcement: Enforcement = currentEnforcement(),
): Promise<GuardOutcome> {
  if (enforcement.mode === "none") return { ok: false, reason: enforcement.reason };
  if (enforcement.mode === "rlimit") {
    return { ok: true, guard: new RlimitGuard(limits, enforcement.prlimit) };
  }
  try {
    return {
      ok: true,
      guard: new CgroupGuard(limits, await CallCgroup.create(enforcement.parent, limits)),
    };
  } catch {
    return { ok: false, reason: "its cgroup could not be created" };
  }
}

/**
 * The error text of a tool whose limits cannot be enforced here.
 *
 * @example
 * ```ts
 * import { unenforceableMessage } from "./guard.ts";
 * unenforceableMessage("resource limits need Linux /proc");
 * ```
 */
export function unenforceableMessage(reason: string): string {
  return `The tool declares resource limits that cannot be enforced on this host (${reason}); it was not run. See \`toolhost tools check\`.`;
}
