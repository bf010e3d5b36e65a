/**
 * cgroup v2 enforcement: probing whether toolhost may create child groups with the
 * memory and pids controllers, and one child group per call or session with
 * `memory.max` (+ `memory.swap.max = 0`, `memory.oom.group = 1`) and `pids.max`.
 * CPU time is read from `cpu.stat` (`usage_usec`, present in every v2 group).
 *
 * A process joins its group before it runs anything: the command is started as
 * `/bin/sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' DIR CMD ARGS...`, so every
 * descendant is born inside. Killing uses `cgroup.kill` where the kernel has it (5.14+),
 * which also reaches processes that left the process group.
 *
 * @module
 */

import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import process from "node:process";
import type { LimitKind, ResourceLimits } from "./types.ts";

const MIB = 1024 * 1024;

/** Outcome of {@link probeCgroup}. */
export type CgroupProbe = { ok: true; parent: string } | { ok: false; reason: string };

/** Options of {@link probeCgroup}. */
export interface ProbeOptions {
  /** Parent group to create children in. Default `$TOOLHOST_CGROUP`, else toolhost's own. */
  parent?: string;
  /** `/proc/self/cgroup` text (tests). */
  selfCgroup?: string;
  /** `/proc/self/mountinfo` text (tests). */
  mountinfo?: string;
}

const NEEDED = ["memory", "pids"];

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/**
 * Toolhost's own cgroup v2 directory, or a reason why there is none.
 *
 * @example
 * ```ts
 * import { ownCgroupDir } from "./cgroup.ts";
 * ownCgroupDir("0::/user.slice\n", "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
 * // "/sys/fs/cgroup/user.slice"
 * ```
 */
export function ownCgroupDir(selfCgroup?: string, mountinfo?: string): string | { reason: string } {
  const cg = selfCgroup ?? readText("/proc/self/cgroup") ?? "";
  const mi = mountinfo ?? readText("/proc/self/mountinfo") ?? "";
  const line = cg.split("\n").find((l) => l.startsWith("0::"));
  const mount = mi.split("\n").map((l) => l.split(" - ")).find((p) => p[1]?.startsWith("cgroup2 "));
  if (line === undefined || mount === undefined) {
    return { reason: "no cgroup v2 hierarchy is mounted" };
  }
  const point = mount[0].split(" ")[4];
  return join(point, line.slice(3).trim());
}

/**
 * The cgroup path (as `/proc/<pid>/cgroup` shows it) of the group at directory `dir`, or
 * undefined when `dir` is not under the cgroup v2 mount — the inverse of
 * {@link ownCgroupDir}.
 *
 * @example
 * ```ts
 * import { cgroupPathOf } from "./cgroup.ts";
 * const mi = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
 * cgroupPathOf("/sys/fs/cgroup/a/toolhost-1-ab", mi); // "/a/toolhost-1-ab"
 * cgroupPathOf("/tmp/x", mi); // undefined
 * ```
 */
export function cgroupPathOf(dir: string, mountinfo?: string): string | undefined {
  const mi = mountinfo ?? readText("/proc/self/mountinfo") ?? "";
  const mount = mi.split("\n").map((l) => l.split(" - ")).find((p) => p[1]?.startsWith("cgroup2 "));
  const point = mount?.[0].split(" ")[4];
  if (point === undefined) return undefined;
  const base = point.endsWith("/") ? point.slice(0, -1) : point;
  if (!dir.startsWith(`${base}/`)) return undefined;
  return dir.slice(base.length);
}

function enable(parent: string): string | undefined {
  const available = (readText(join(parent, "cgroup.controllers")) ?? "").trim().split(/\s+/);
  if (!NEEDED.every((c) => available.includes(c))) {
    return "the cgroup v2 hierarchy offers no memory and pids controllers here (a cgroup v1 or hybrid host)";
  }
  const enabled = (readText(join(parent, "cgroup.subtree_control")) ?? "").trim().split(/\s+/);
  if (NEEDED.every((c) => enabled.includes(c))) return undefined;
  try {
    writeFileSync(join(parent, "cgroup.subtree_control"), "+memory +pids");
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code === "EBUSY"
      ? "toolhost's cgroup holds processes, so it cannot host child groups (start toolhost in a delegated cgroup and set TOOLHOST_CGROUP)"
      : "the cgroup is not delegated to this user (its controllers cannot be enabled)";
  }
}

/**
 * Check that child groups with memory and pids limits can be created under the parent
 * (creates and removes one probe group). Never throws.
 *
 * @example
 * ```ts
 * import { probeCgroup } from "./cgroup.ts";
 * const p = probeCgroup();
 * console.log(p.ok ? `cgroup under ${p.parent}` : p.reason);
 * ```
 */
export function probeCgroup(opts: ProbeOptions = {}): CgroupProbe {
  const parent = opts.parent ?? process.env.TOOLHOST_CGROUP ??
    ownCgroupDir(opts.selfCgroup, opts.mountinfo);
  if (typeof parent !== "string") return { ok: false, reason: parent.reason };
  const why = enable(parent);
  if (why !== undefined) return { ok: false, reason: why };
  const probe = join(parent, `toolhost-probe-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(probe);
    writeFileSync(join(probe, "pids.max"), "max");
    writeFileSync(join(probe, "memory.max"), "max");
  } catch {
    return { ok: false, reason: "a child group with memory and pids limits could not be created" };
  } finally {
    try {
      rmdirSync(probe);
    } catch { /* never created */ }
  }
  return { ok: true, parent };
}

/** Counters of a call group. */
export interface CgroupEvents {
  /** Processes killed by the OOM killer inside the group. */
  oomKills: number;
  /** Forks refused because of `pids.max`. */
  pidsMax: number;
  /** CPU time of everything that ran in the group, µs. */
  cpuUsec: number;
}

function counter(text: string | undefined, key: string): number {
  const m = new RegExp(`^${key} (\\d+)$`, "m").exec(text ?? "");
  return m ? Number(m[1]) : 0;
}

/**
 * One child group for one call or session.
 *
 * @example
 * ```ts
 * import { CallCgroup } from "./cgroup.ts";
 * // const g = await CallCgroup.create("/sys/fs/cgroup/toolhost", { maxMemoryMb: 64 });
 * // const { command, args } = g.wrap("/usr/bin/env", []);
 * // ... g.events(); await g.remove();
 * ```
 */
export class CallCgroup {
  /** The group's directory. */
  readonly dir: string;
  #path?: string | null;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** Create the group under `parent` and write its limits. */
  static async create(parent: string, limits: ResourceLimits): Promise<CallCgroup> {
    const dir = join(parent, `toolhost-${process.pid}-${randomBytes(6).toString("hex")}`);
    await fsp.mkdir(dir);
    const g = new CallCgroup(dir);
    try {
      if (limits.maxMemoryMb !== undefined) {
        await fsp.writeFile(join(dir, "memory.max"), String(limits.maxMemoryMb * MIB));
        await fsp.writeFile(join(dir, "memory.swap.max"), "0").catch(() => {});
        await fsp.writeFile(join(dir, "memory.oom.group"), "1").catch(() => {});
      }
      if (limits.maxProcesses !== undefined) {
        await fsp.writeFile(join(dir, "pids.max"), String(limits.maxProcesses));
      }
    } catch (e) {
      await g.remove();
      throw e;
    }
    return g;
  }

  /** The command line that joins this group and then runs `command`. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] } {
    const join = 'echo $$ > "$0/cgroup.procs" && exec "$@"';
    return { command: "/bin/sh", args: ["-c", join, this.dir, command, ...args] };
  }

  /** Current counters (zeros for files that cannot be read). */
  events(): CgroupEvents {
    const mem = readText(join(this.dir, "memory.events"));
    return {
      oomKills: Math.max(counter(mem, "oom_kill"), counter(mem, "oom_group_kill")),
      pidsMax: counter(readText(join(this.dir, "pids.events")), "max"),
      cpuUsec: counter(readText(join(this.dir, "cpu.stat")), "usage_usec"),
    };
  }

  /**
   * Whether process `pid` is in this group or one nested in it (its `0::` line in
   * `/proc/<pid>/cgroup`). A descendant that moved itself to another group the user may
   * write to is not, and its resources are not in the group's counters.
   */
  holds(pid: number): boolean {
    this.#path ??= cgroupPathOf(this.dir) ?? null;
    const own = this.#path;
    if (own === null) return false; // not on a cgroup2 mount: nothing is in it
    const line = (readText(`/proc/${pid}/cgroup`) ?? "").split("\n").find((l) =>
      l.startsWith("0::")
    );
    const path = line?.slice(3).trim();
    return path === own || (path?.startsWith(`${own}/`) ?? false);
  }

  /** Current memory (`memory.current`, bytes) and process count (`pids.current`); 0 when unread. */
  current(): { memoryBytes: number; pids: number } {
    const n = (f: string) => Number((readText(join(this.dir, f)) ?? "").trim()) || 0;
    return { memoryBytes: n("memory.current"), pids: n("pids.current") };
  }

  /**
   * The limit whose file no longer holds what toolhost wrote (the files belong to the
   * user the tool runs as, so a tool can write them), or null.
   */
  tampered(limits: ResourceLimits): LimitKind | null {
    const is = (f: string, v: number) => (readText(join(this.dir, f)) ?? "").trim() === String(v);
    if (limits.maxMemoryMb !== undefined && !is("memory.max", limits.maxMemoryMb * MIB)) {
      return "memory";
    }
    if (limits.maxProcesses !== undefined && !is("pids.max", limits.maxProcesses)) {
      return "processes";
    }
    return null;
  }

  /** Kill every process in the group (`cgroup.kill`); false where unsupported. */
  kill(): boolean {
    try {
      writeFileSync(join(this.dir, "cgroup.kill"), "1");
      return true;
    } catch {
      return false;
    }
  }

  /** Kill what is left, wait (≤ 2 s) until the group is empty, then remove it. */
  async remove(): Promise<void> {
    if (!(await isCgroupFs(this.dir))) {
      await fsp.rm(this.dir, { recursive: true, force: true }).catch(() => {});
      return;
    }
    this.kill();
    const end = Date.now() + 2000;
    while (Date.now() < end && (readText(join(this.dir, "cgroup.procs")) ?? "").trim() !== "") {
      await new Promise((r) => setTimeout(r, 10));
    }
    await fsp.rmdir(this.dir).catch(() => {});
  }
}

/** A fake (test) hierarchy is an ordinary folder: it holds files we wrote and must go too. */
async function isCgroupFs(dir: string): Promise<boolean> {
  try {
    await fsp.access(join(dir, "cgroup.controllers"));
    return true;
  } catch {
    return false;
  }
}
