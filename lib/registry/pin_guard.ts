/**
 * Pins that hold for every call, not only at open: the registry pins each execution path
 * once (recording the identities the digest came from) and, before every run of a tool,
 * checks that each pinned file and folder of that tool — and of the session it is bound
 * to — is unchanged (one `lstat` per file, entry and folder; a re-hash of only what
 * moved). With a lock, the programs the tool runs (PATH lookup, `#!` interpreter, what
 * `env` resolves) are checked the same way against `toolhost.lock`. A change fails the
 * call naming the tool and the path, so `provenance()` is what every call ran.
 *
 * What is not covered: the instants between this check and the kernel's `exec` (and a
 * script's interpreter opening it), and files a program reads that are not pinned.
 *
 * @module
 */

import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { reportCallEvent } from "../events/call_events.ts";
import { PreparationFailed } from "../errors/errors.ts";
import { programDrift } from "../lock/compare.ts";
import type { ProgramPins } from "../lock/lock_file.ts";
import { mapLimit } from "../pins/limit.ts";
import { type PathSnapshot, repin, snapshotPath, snapshotUnchanged } from "../pins/pin_snapshot.ts";
import {
  depsIdentity,
  pinProgram,
  type ProgramContext,
  programSteps,
} from "../pins/program_pin.ts";
import { showPath } from "../paths/show_path.ts";
import { pinRequests } from "../runtime/pin_selection.ts";
import { sessionPinKey } from "../workspace/names.ts";
import type { Workspace } from "../workspace/types.ts";
import type { Selection } from "./selection.ts";

/**
 * For a declared execution path that is not there: the same path inside a folder Artifact
 * when it is there (execution paths are relative to the workspace root, commands to their
 * Artifact's folder, and the two are easily mixed up), as a did-you-mean.
 */
function rootHint(ws: Workspace, declared: string): string {
  if (existsSync(join(ws.root, declared))) return "";
  for (const a of ws.artifacts.values()) {
    if (a.kind !== "folder" || a.relPath === "" || a.relPath === ".") continue;
    const candidate = `${a.relPath}/${declared}`;
    if (plainlyThere(ws.root, candidate)) {
      return `. Did you mean ${showPath(candidate)} (in Artifact ${showPath(a.id)})?`;
    }
  }
  return "";
}

/**
 * Whether `rel` is there under `root` with no symlink on the way: what a pin could take. A
 * symlink is not followed, so the hint never tells what exists where one leads (outside
 * the workspace, say) and never suggests a path that could not be pinned either.
 */
function plainlyThere(root: string, rel: string): boolean {
  let at = root;
  for (const part of rel.split("/")) {
    at = join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The programs of one command as locked, and the identities they had when verified. */
interface ProgramWatch {
  command: string;
  ctx: ProgramContext;
  locked: ProgramPins;
  /** What the resolution depended on (PATH folders searched, programs found). */
  deps: string[];
  /** Their identities when last verified. */
  seen: string;
}

function trace(command: string, ctx: ProgramContext): { deps: string[]; seen: string } {
  const deps: string[] = [];
  programSteps(command, ctx, deps);
  return { deps, seen: depsIdentity(deps) };
}

/**
 * The execution-path and program pins of one open registry, checked before each run.
 *
 * @example
 * ```ts
 * import { PinGuard } from "./pin_guard.ts";
 * // const guard = await PinGuard.open(ws, selection);
 * // const problem = await guard.check("stats_app"); // undefined: unchanged
 * ```
 */
export class PinGuard {
  /** Tool or session pin key → declared path → SHA-256, as pinned at open (provenance). */
  readonly pins: Record<string, Record<string, string>>;
  readonly #root: string;
  readonly #snaps: Map<string, PathSnapshot>;
  readonly #keys = new Map<string, string[]>();
  readonly #programs = new Map<string, ProgramWatch[]>();

  private constructor(
    root: string,
    pins: Record<string, Record<string, string>>,
    snaps: Map<string, PathSnapshot>,
  ) {
    this.#root = root;
    this.pins = pins;
    this.#snaps = snaps;
  }

  /**
   * Pin every execution path of a selection's tools and bound sessions. Throws
   * `PreparationFailed` naming the key and path when one cannot be pinned.
   */
  static async open(ws: Workspace, sel: Selection): Promise<PinGuard> {
    const requests = pinRequests(ws, sel);
    const firstKey = new Map<string, string>();
    for (const { key, paths } of requests) {
      for (const p of paths) if (!firstKey.has(p)) firstKey.set(p, key);
    }
    const distinct = [...firstKey.keys()];
    const snaps = await mapLimit(distinct, 4, async (path) => {
      try {
        return await snapshotPath(ws.root, path);
      } catch (e) {
        if (e instanceof PreparationFailed) {
          throw new PreparationFailed(`${firstKey.get(path)}: ${e.message}${rootHint(ws, path)}`);
        }
        throw e;
      }
    });
    const byPath = new Map(distinct.map((p, i) => [p, snaps[i]]));
    const pins: Record<string, Record<string, string>> = {};
    for (const { key, paths } of requests) {
      pins[key] = Object.fromEntries(paths.map((p) => [p, byPath.get(p)!.digest]));
    }
    const guard = new PinGuard(ws.root, pins, byPath);
    for (const t of sel.tools) {
      if (t.decl.type !== "command") continue;
      const keys = [t.name];
      if (t.decl.session !== undefined) {
        keys.push(sessionPinKey(t.decl.session, t.artifactId, "start"));
        keys.push(sessionPinKey(t.decl.session, t.artifactId, "stop"));
      }
      guard.#keys.set(t.name, keys.filter((k) => Object.hasOwn(pins, k)));
    }
    return guard;
  }

  /**
   * The snapshots the pins of `key` (a tool, or `<session>_<artifact>.start` / `.stop`) were
   * computed from, in declared order: what a check of where their links lead must read
   * (`leavingLink` of `link_scope.ts`), never the file system a second time.
   */
  snapshots(key: string): PathSnapshot[] {
    return Object.keys(this.pins[key] ?? {}).map((path) => this.#snaps.get(path)!);
  }

  /** Whether hook programs are watched (key `""`): every call checks them first. */
  get watchesHooks(): boolean {
    return this.#programs.has("");
  }

  /**
   * With a lock: watch the programs `tool` runs (`""`: the hook commands around every
   * call; `command` resolved in `ctx`) against their `locked` pins from now on.
   */
  watchProgram(tool: string, command: string, ctx: ProgramContext, locked: ProgramPins): void {
    const list = this.#programs.get(tool) ?? [];
    // A session started by the tool's own command is the same resolution: check it once.
    const same = list.some((w) =>
      w.command === command && w.ctx.cwd === ctx.cwd && w.ctx.env === ctx.env &&
      JSON.stringify(w.ctx.operands) === JSON.stringify(ctx.operands) &&
      JSON.stringify(w.locked) === JSON.stringify(locked)
    );
    if (same) return;
    list.push({ command, ctx, locked, ...trace(command, ctx) });
    this.#programs.set(tool, list);
  }

  /**
   * Undefined when every pinned path and watched program of `tool` is what it was; else a
   * value-free sentence naming the tool and the path that changed.
   */
  async check(tool: string): Promise<string | undefined> {
    // A tool and its session's start and stop commands often pin the same folders: each
    // path is checked once per call.
    const seen = new Set<string>();
    for (const key of this.#keys.get(tool) ?? []) {
      const changed = await this.#checkKey(key, tool, seen);
      if (changed !== undefined) return changed;
    }
    return this.#checkPrograms(tool);
  }

  /**
   * Whether the pinned paths of one pin key (a tool, or `<session>_<artifact>.stop`) and,
   * with a lock, the programs watched under it are unchanged; false when one changed.
   */
  async keyUnchanged(key: string): Promise<boolean> {
    if ((await this.#checkKey(key, key)) !== undefined) return false;
    return (await this.#checkPrograms(key)) === undefined;
  }

  async #checkKey(
    key: string,
    tool: string,
    seen = new Set<string>(),
  ): Promise<string | undefined> {
    for (const [path, digest] of Object.entries(this.pins[key] ?? {})) {
      if (seen.has(path)) continue;
      seen.add(path);
      const snap = this.#snaps.get(path)!;
      if (snapshotUnchanged(snap)) continue;
      const now = await repin(this.#root, snap);
      if (now === undefined || now.digest !== digest) {
        return `execution path ${showPath(path)} of the tool ${showPath(tool)} changed ` +
          "since the registry opened (the path is relative to the workspace root), so it no " +
          "longer matches its pin (provenance). Review the change, then reopen the registry " +
          "(run the command again, or restart `toolhost serve`) to pin it anew; if the tool " +
          "or its session writes there itself, declare only its program files in execution_paths";
      }
      this.#snaps.set(path, now); // moved but identical: remember the new identities
    }
    return undefined;
  }

  async #checkPrograms(tool: string): Promise<string | undefined> {
    for (const w of this.#programs.get(tool) ?? []) {
      if (depsIdentity(w.deps) === w.seen) continue; // a few stats, no PATH walk, no read
      const now = trace(w.command, w.ctx);
      const drift = programDrift(
        { kind: "tool", name: tool },
        w.locked,
        await pinProgram(w.command, w.ctx),
      );
      if (drift.length > 0) {
        const d = drift[0];
        const whose = tool === "" ? "a hook command" : `the tool ${showPath(tool)}`;
        reportCallEvent({ kind: "lock_mismatch", what: "program" });
        return `LOCK_MISMATCH: program ${showPath(d.key ?? "")} ${showPath(d.path ?? "")} of ` +
          `${whose} differs from toolhost.lock (${d.change} since the registry opened). ` +
          "Review the change, then run `toolhost lock` to accept it";
      }
      w.deps = now.deps;
      w.seen = now.seen;
    }
    return undefined;
  }
}
