/**
 * The registry of one eval: lists its tools under stable names and (in later layers)
 * runs them. Opening pins execution paths; listing creates nothing and runs nothing.
 *
 * @module
 */

import { processEnv } from "../process/env.ts";
import { checkStateDir } from "./state_dir_check.ts";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { ArtifactStore } from "../artifacts/store.ts";
import { isArtifactToolName } from "../artifacts/specs.ts";
import { removeSessionSubtree } from "../odek/session_subtree.ts";
import { callArtifactToolAdmitted } from "../runtime/artifact_tools.ts";
import { InvocationError, ToolhostError } from "../errors/errors.ts";
import { errorResult, type ToolResult } from "../results/types.ts";
import type { Workspace } from "../workspace/types.ts";
import type { ToolListing } from "../results/tool_listing.ts";
import type { CallHost, CallOptions } from "../runtime/call_host.ts";
import { withCallPath } from "./call_path.ts";
import { WarmPool, warmSandboxesEnabled } from "../sandbox/warm_pool.ts";
import { SessionSupervisor } from "../sessions/supervisor.ts";
import { PinGuard } from "./pin_guard.ts";
import type { PathSnapshot } from "../pins/pin_snapshot.ts";
import { sessionPinKey } from "../workspace/names.ts";
import { PluginHost } from "../plugins/host.ts";
import { openPluginHost } from "../plugins/open_host.ts";
import { openRegistryLock } from "../lock/open_lock.ts";
import { lockInputs, watchLockedPrograms } from "./lock_state.ts";
import type { RegistryLock } from "../lock/registry_lock.ts";
import type { ExtensionHost } from "../extensions/host.ts";
import { reportCallEvent } from "../events/call_events.ts";
import { type RedactedCopy, redactedCopy } from "../redact/copy.ts";
import { MIN_CREDENTIAL_UNITS, openRegistryExtensions } from "./registry_extensions.ts";
import type { RegistryOptions } from "./registry_options.ts";
import { listTools } from "./list_tools.ts";
import {
  findTool,
  type RegisteredTool,
  type Selection,
  type SelectionSpec,
  selectTools,
} from "./selection.ts";

export type { ToolListing } from "../results/tool_listing.ts";
export type { CallOptions } from "../runtime/call_host.ts";
export type { RegistryExtensionOptions } from "./registry_extensions.ts";
export type { RegistryOptions } from "./registry_options.ts";
export { listTools } from "./list_tools.ts";

/** The error of a call made after `close()` began. */
const CLOSED = "The tool call was refused: this registry is closed.";

/**
 * An open eval.
 *
 * @example
 * ```ts
 * import { loadWorkspace } from "../workspace/load_workspace.ts";
 * import { Registry } from "./registry.ts";
 * const ws = await loadWorkspace("examples");
 * const reg = await Registry.open(ws, "app/review");
 * console.log(reg.list().map((t) => t.name));
 * await reg.close();
 * ```
 */
export class Registry implements CallHost {
  /** The workspace. */
  readonly workspace: Workspace;
  /** The selection (eval scope and tools). */
  readonly selection: Selection;
  /** The state directory. */
  readonly stateDir: string;
  /** The author's environment. */
  readonly env: Record<string, string>;
  /** Execution-path pins: tool or session key → declared path → sha256. */
  readonly pins: Record<string, Record<string, string>>;
  /** Random id of this open registry (names its artifact directory). */
  readonly id: string = randomBytes(12).toString("hex");
  /** Artifacts validated in this registry's conversation (odek refs). */
  readonly artifacts: ArtifactStore = new ArtifactStore();
  #closing: Promise<void> | undefined;
  // Every call not yet settled, with the controller that cancels it on close().
  #inflight = new Map<AbortController, Promise<ToolResult>>();
  /**
   * Plugins: hooks around every call, plugin tools, and the session events the
   * supervisor reports with `plugins.emitSessionStarted(info)` / `emitSessionEnded(info)`.
   */
  readonly plugins: PluginHost;
  // Created on first use; creates no directory and runs nothing itself.
  #sessions: SessionSupervisor | undefined;
  /** Where copies of tool and harness stderr go ({@link RegistryOptions.stderr}). */
  stderr: ((chunk: Uint8Array) => void) | undefined;
  #lock: RegistryLock | undefined;
  #guard: PinGuard | undefined;
  #extensions: ExtensionHost | undefined;
  #warm: WarmPool | null | undefined; // created on first use; null when off
  #stderrCopy: RedactedCopy | undefined; // behind `stderr` when a copy was asked for

  /** Use {@link Registry.open}. */
  constructor(
    workspace: Workspace,
    selection: Selection,
    opts: Required<Pick<RegistryOptions, "stateDir" | "env">>,
    pins: Record<string, Record<string, string>> | PinGuard,
    plugins: PluginHost = PluginHost.empty(),
  ) {
    this.plugins = plugins;
    // The artifact tools refuse any field holding a protected value (windows and searches
    // would otherwise reveal it piece by piece), whatever put the artifact there.
    this.artifacts.protect(plugins.redactor);
    this.workspace = workspace;
    this.selection = selection;
    this.stateDir = opts.stateDir;
    this.env = opts.env;
    this.#guard = pins instanceof PinGuard ? pins : undefined;
    this.pins = pins instanceof PinGuard ? pins.pins : pins;
  }

  /**
   * Open an eval: resolve its scope and tools and pin their execution paths. Throws
   * {@link InvocationError} for an unknown eval or the wrong audience, and
   * `PreparationFailed` when a path cannot be pinned.
   */
  static open(ws: Workspace, evalId: string, opts: RegistryOptions = {}): Promise<Registry> {
    return Registry.openSelection(ws, { eval: evalId }, opts);
  }

  /**
   * Open an eval, or an Artifact with an audience (`tools check --artifact`): the scope is
   * that Artifact and its children.
   */
  static async openSelection(
    ws: Workspace,
    spec: SelectionSpec,
    opts: RegistryOptions = {},
  ): Promise<Registry> {
    const selection = selectTools(ws, spec);
    const audience = opts.audience ?? "agent";
    if (selection.audience !== audience) {
      throw new InvocationError(
        `\`${
          "eval" in spec ? spec.eval : spec.artifact
        }\` selects ${selection.audience} tools; this registry serves ${audience} tools (pass audience: "${selection.audience}")`,
      );
    }
    const stateDir = opts.stateDir ?? join(ws.root, ".toolhost", "state");
    checkStateDir(ws.root, stateDir);
    const env = opts.env ? { ...opts.env } : processEnv(); // ours: plugins may withhold keys
    const guard = await PinGuard.open(ws, selection);
    const pins = guard.pins;
    // Hook programs again right before each hook runs (an after_call one runs after the tool).
    const verifyHooks = () => guard.watchesHooks ? guard.check("") : Promise.resolve(undefined);
    const plugins = await openPluginHost(ws, selection, {
      stateDir,
      env,
      plugins: opts.plugins,
      verifyHooks,
    });
    for (const s of opts.secrets ?? []) {
      if (s.length >= MIN_CREDENTIAL_UNITS) plugins.redactor.add(s);
    }
    const reg = new Registry(ws, selection, { stateDir, env }, guard, plugins);
    if (opts.stderr) {
      // Copies of stderr reach a terminal (and whoever drives the CLI): values redacted.
      const copy = redactedCopy(opts.stderr, plugins.redactor);
      reg.#stderrCopy = copy;
      reg.stderr = copy.write;
    }
    if (!(opts.warmSandboxes ?? warmSandboxesEnabled())) reg.#warm = null;
    try { // compare what this registry exposes and runs with toolhost.lock
      const source = { workspace: ws, selection, listing: reg.list(), pins, env };
      reg.#lock = await openRegistryLock(ws, () => lockInputs(source), opts.lock);
      const locked = reg.#lock?.locked;
      if (locked) watchLockedPrograms(guard, { workspace: ws, selection, env, locked });
      const own = new Set(reg.list().map((t) => t.name));
      reg.#extensions = await openRegistryExtensions(reg, own, opts.extensions, plugins.redactor);
    } catch (e) {
      await reg.close().catch(() => {});
      // A lock's errors name its keys (tools, extensions), which may hold a protected value.
      if (e instanceof ToolhostError) plugins.redactor.error(e);
      throw e;
    }
    return reg;
  }

  /**
   * Verify, just before a tool's process starts, that its pins still hold: each pinned
   * file and folder of the tool and its session unchanged, and with a lock its programs
   * (see {@link CallHost.verifyBeforeRun}). An error result naming the tool and path if not.
   */
  async verifyBeforeRun(tool: string): Promise<ToolResult | undefined> {
    const problem = await this.#guard?.check(tool);
    return problem === undefined ? undefined : errorResult(`The call was refused: ${problem}.`);
  }

  /** The verified lock, or undefined when none applies or verification is off. */
  get lock(): RegistryLock | undefined {
    return this.#lock;
  }

  /** This registry's artifact directory (`<state>/artifacts/<id>`), created on first use. */
  get artifactDir(): string {
    return join(this.stateDir, "artifacts", this.id);
  }

  /**
   * The tools this eval publishes, then (agent evals) `get_artifact_field`,
   * `search_artifact_content` and plugin tools, then its extensions' tools (each with
   * `extension` set): with a current `toolhost.lock`, from the lock before their server
   * has started and from its verified live list after; without a lock, only those of
   * servers something listed live (`serve`'s `tools/list`). Creates nothing, runs
   * nothing, starts no server.
   */
  list(): ToolListing[] {
    const listed = this.selection.audience === "agent" ? this.plugins.listedTools() : [];
    const all = [...listTools(this.selection), ...listed];
    const own = this.#lock ? this.#lock.neutralize(all) : all;
    return [...own, ...(this.#extensions?.published() ?? [])];
  }

  /**
   * The eval's extension servers (undefined: it admits none). Listing them live with
   * `extensions.list()` starts the servers a lock cannot stand in for.
   */
  get extensions(): ExtensionHost | undefined {
    return this.#extensions;
  }

  /**
   * The snapshots the pins of `key` were computed from (see `PinGuard.snapshots`), or
   * undefined for a registry built without a guard.
   */
  pinSnapshots(key: string): PathSnapshot[] | undefined {
    return this.#guard?.snapshots(key);
  }

  /** Execution-path provenance: `{ executionPaths: { TOOL: { PATH: sha256 } } }`. */
  provenance(): { executionPaths: Record<string, Record<string, string>> } {
    return { executionPaths: structuredClone(this.pins) };
  }

  /** Find a tool by its published name. */
  tool(name: string): RegisteredTool {
    return findTool(this.selection, name, false);
  }

  /**
   * Call a tool by published name; always resolves to a normalized ToolResult (an unknown
   * name throws `InvocationError`). After {@link Registry.close} began, calls resolve to
   * an error result and run nothing.
   */
  call(name: string, args: unknown, opts: CallOptions = {}): Promise<ToolResult> {
    const red = this.plugins.redactor;
    if (!red.active) return this.#call(name, args, opts);
    // The one exit of every call's result and error, whatever made it (a refusal before
    // the plugins' boundary, a thrown typed error): a result the boundary already
    // redacted passes as it is.
    let p: Promise<ToolResult>;
    try {
      p = this.#call(name, args, opts);
    } catch (e) {
      throw red.error(e);
    }
    return p.then((r) => red.result(r), (e) => {
      throw red.error(e);
    });
  }

  #call(name: string, args: unknown, opts: CallOptions): Promise<ToolResult> {
    if (this.#closing !== undefined) return Promise.resolve(errorResult(CLOSED));
    const refused = this.#lock?.refusal(name); // LOCK_MISMATCH
    if (refused) {
      reportCallEvent({ kind: "lock_mismatch", what: "tool" });
      return Promise.resolve(refused);
    }
    const run = this.#runner(name, args);
    const guard = this.#guard;
    if (guard === undefined || !guard.watchesHooks) return this.#track(opts, run);
    // With a lock, hook commands run around every call: their programs are checked first.
    return this.#track(opts, async (o) => {
      const problem = await guard.check("");
      return problem === undefined
        ? await run(o)
        : errorResult(`The call was refused: ${problem}.`);
    });
  }

  /** How to run `name` (throws `InvocationError` at once for an unknown name). */
  #runner(name: string, args: unknown): (o: CallOptions) => Promise<ToolResult> {
    // The call path is loaded on first use (see call_path.ts); an unknown name still
    // throws here, at once.
    if (this.selection.audience === "agent" && isArtifactToolName(name)) {
      const exec = () => callArtifactToolAdmitted(name, args, this.artifacts);
      return (o) => withCallPath((c) => c.guardCall(this.plugins, name, args, o, exec));
    }
    if (this.selection.audience === "agent" && this.plugins.tool(name)?.tool.alwaysListed) {
      return (o) => withCallPath((c) => c.callListedTool(this.plugins, name, args, o));
    }
    const host = this.#extensions;
    if (host?.serves(name) && !this.selection.tools.some((t) => t.name === name)) {
      // The `_<extension>` suffix says which server without starting it, so a call the
      // plugins deny starts nothing; extension calls pass the same hooks as every call.
      return (o) =>
        withCallPath((c) =>
          c.guardCall(this.plugins, name, args, o, () => host.call(name, args, o))
        );
    }
    const tool = this.tool(name);
    return (o) => withCallPath((c) => c.callTool(this, tool, args, o));
  }

  /** Run `run` with a signal that also aborts on close(), and remember it until settled. */
  #track(opts: CallOptions, run: (o: CallOptions) => Promise<ToolResult>): Promise<ToolResult> {
    const ctl = new AbortController();
    const caller = opts.signal;
    const onAbort = () => ctl.abort(caller?.reason);
    caller?.addEventListener("abort", onAbort); // removed when settled (no options to convert)
    if (caller?.aborted) onAbort();
    let p: Promise<ToolResult>;
    try {
      p = run({ ...opts, signal: ctl.signal });
    } catch (e) {
      caller?.removeEventListener("abort", onAbort);
      throw e;
    }
    const settled = p.finally(() => {
      this.#stderrCopy?.flush(); // what the redaction held back of the call's stderr
      this.#inflight.delete(ctl);
      caller?.removeEventListener("abort", onAbort);
    });
    this.#inflight.set(ctl, settled);
    settled.catch(() => {}); // the caller sees the rejection through `p`
    return p;
  }

  /**
   * This registry's tool-session supervisor, created lazily. Sessions
   * start on their first bound call; `close()` stops them. Tests may call
   * `reg.sessions.configure({ stopTimeoutMs })` before the first bound call.
   */
  get sessions(): SessionSupervisor {
    const guard = this.#guard;
    // A stop command whose pinned files changed since open is not run (the harness
    // group is ended all the same).
    const beforeStop = guard
      ? (artifactId: string, session: string) =>
        guard.keyUnchanged(sessionPinKey(session, artifactId, "stop"))
      : undefined;
    return (this.#sessions ??= new SessionSupervisor({
      ...(beforeStop ? { beforeStop } : {}),
      stderr: this.stderr,
    }));
  }

  /** Warm sandboxes of confined command tools (undefined when off, or once closed). */
  get warm(): WarmPool | undefined {
    if (this.#warm === null || this.#closing !== undefined) return undefined;
    return (this.#warm ??= new WarmPool());
  }

  /** Whether {@link Registry.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Cancel every in-flight call (each kills its process group) and wait until each has
   * settled and cleaned up, then stop sessions and remove per-registry state; confirms
   * cleanup. Calls made from then on are refused with an error result. Idempotent: every
   * caller gets the same outcome.
   */
  close(): Promise<void> {
    return (this.#closing ??= this.#close());
  }

  /** `await using reg = await Registry.open(...)` closes it ({@link Registry.close}). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    for (const ctl of this.#inflight.keys()) ctl.abort(CLOSED);
    await Promise.allSettled(this.#inflight.values());
    try {
      // Extension servers and tool sessions both stop; the first failure is rethrown.
      const results = await Promise.allSettled([
        this.#extensions?.close(),
        this.sessions.close(), // every started tool session stops and is cleaned up
        this.#warm?.close(),
      ]);
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    } finally {
      this.#stderrCopy?.flush(true); // nothing follows: a tail a line break ends goes too
      await removeSessionSubtree(join(this.stateDir, "artifacts"), this.id);
      await this.plugins.close();
    }
  }
}
