/**
 * An MCP client transport over the stdio of a server started as the leader of its own
 * session and process group (`setsid`), so that closing it ends the whole group with the
 * same identity-checked cleanup as tool sessions (SIGTERM, grace, SIGKILL, confirmation
 * via `/proc`). Framing is line_framing.ts with the SDK's `ReadBuffer` in linear time
 * (json_rpc_lines.ts); the SDK's `StdioClientTransport` is not used because it neither
 * starts a process group nor confirms that descendants are gone.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { Buffer } from "node:buffer";
import process from "node:process";
import { feedLines, frameBytes } from "./line_framing.ts";
import { JsonRpcLineBuffer } from "./json_rpc_lines.ts";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  type ProcessRecord,
  recordProcess,
  signalGroup,
  terminateGroup,
  type TerminateReport,
} from "../process/mod.ts";
import { SpawnError, spawnFailureFromCode } from "../process/spawn_error.ts";
import { GROUP_TAG_VAR, newGroupTag, reapEscapesConfirmed } from "../process/escape_reaper.ts";
import { runtimeSafeArgv } from "../process/runtime_argv.ts";
import type { GuardLimit, RunGuard } from "../process/run_guard.ts";
import type { Confine } from "../process/sandbox_init.ts";
import { endSandbox } from "../process/sandbox_end.ts";
import { SANDBOX_INFO_FD } from "../process/sandbox_info.ts";
import { withBindFds } from "../process/bind_fds.ts";
import type { Readable } from "node:stream";
import { armDeadMan, bindDeadMan, disarmDeadMan } from "../process/dead_man.ts";
import type { Protector } from "../redact/types.ts";
import { endAdoptedOf, noteOwnChild } from "../process/adopted.ts";

/** Options of {@link ProcessGroupTransport}. */
export interface GroupTransportOptions {
  /** Absolute path of the executable (already resolved). */
  command: string;
  /** argv[1..]. Default none. */
  args?: string[];
  /** Working directory. */
  cwd: string;
  /** The complete environment of the server (nothing is inherited). */
  env: Record<string, string>;
  /** How long `close()` waits for a voluntary exit after closing stdin. Default 1000 ms. */
  exitWaitMs?: number;
  /** SIGTERM → SIGKILL grace during `close()`. Default 2000 ms. */
  graceMs?: number;
  /**
   * Largest message buffered from the server, and most bytes written to it that it has
   * not read yet (beyond that it is disconnected). Default 16 MiB.
   */
  maxBufferBytes?: number;
  /** Resource limits of the server's process group (lib/limits). Default none. */
  guard?: RunGuard;
  /** Confinement of the server (lib/sandbox). Default none. */
  confine?: Confine;
  /** The protected values now: a message holding one outside a JSON string is held. Default none. */
  protect?: () => Protector | undefined;
}

/**
 * `send()` refused a message because the server was already gone: it was never written,
 * so the server cannot have acted on it (a request may be retried).
 */
export class NotDeliveredError extends Error {
  /** Create the error. */
  constructor() {
    super("the extension server is not running");
    this.name = "NotDeliveredError";
  }
}

const DEFAULT_BUFFER_BYTES = 16 * 1024 * 1024;

const live = new Set<ProcessRecord>();
let exitHook = false;

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const r of live) signalGroup(r, "SIGKILL");
  });
}

/**
 * Stdio transport to an MCP server running in its own process group.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client";
 * import { ProcessGroupTransport } from "./group_transport.ts";
 * const t = new ProcessGroupTransport({ command: "/usr/bin/npx", args: ["-y", "some-server"], cwd: "/", env: {} });
 * const client = new Client({ name: "toolhost", version: "0" });
 * // await client.connect(t); ... await t.close(); t.cleanup?.confirmed
 * ```
 */
export class ProcessGroupTransport implements Transport {
  /** Called when the server's stdio closes or the transport is closed. */
  onclose?: () => void;
  /** Called on stream and framing errors. */
  onerror?: (error: Error) => void;
  /** Called for each message from the server. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** The group's identity once started. */
  record?: ProcessRecord;
  /** The outcome of group cleanup, once `close()` finished. */
  cleanup?: TerminateReport;
  readonly #opts: GroupTransportOptions;
  readonly #buffer: JsonRpcLineBuffer;
  #child?: ChildProcess;
  #exited?: Promise<void>;
  #closing?: Promise<void>;
  #closedNotified = false;
  #drained?: Promise<void>;
  /** The group's random tag (escape_reaper.ts), in its environment; never shown. */
  readonly #tag = newGroupTag();
  /** The resource limit that stopped the server, if one did. */
  limitHit?: GuardLimit;

  /** Create a transport; nothing runs until `start()`. */
  constructor(opts: GroupTransportOptions) {
    this.#opts = opts;
    this.#buffer = new JsonRpcLineBuffer({
      maxBufferSize: opts.maxBufferBytes ?? DEFAULT_BUFFER_BYTES,
      protect: opts.protect,
    });
  }

  /** Spawn the server. Rejects with {@link SpawnError} (generic reason, no paths). */
  async start(): Promise<void> {
    if (this.#child) throw new Error("ProcessGroupTransport already started");
    const o = this.#opts;
    const inner: ReturnType<Confine["wrap"]> =
      o.confine?.wrap(o.command, o.args ?? [], o.cwd, []) ??
        { command: o.command, args: o.args ?? [] };
    let child: ChildProcess;
    try {
      const wrapped = o.guard?.wrap(inner.command, inner.args) ?? inner;
      // Deno rewrites an argv naming its own binary (lib/process runtime_argv.ts).
      const argv = runtimeSafeArgv(wrapped.command, wrapped.args);
      // Every extension group is on the dead man's switch for its whole life: a server that
      // keeps running after end-of-file (a call in flight, a grandchild) is not journaled for
      // a sweep, and must not outlive a kill -9 of toolhost; bwrap's --die-with-parent has
      // windows after clone, the switch has none.
      const confined = o.confine !== undefined;
      armDeadMan(this.#tag);
      child = spawn(argv.command, argv.args, {
        cwd: this.#opts.cwd,
        env: { ...this.#opts.env, [GROUP_TAG_VAR]: this.#tag },
        detached: true,
        // A sandbox's bwrap writes its init to fd 3 (`--info-fd`); read and dropped here.
        // Its bind sources follow from fd 5 (lib/process/bind_fds.ts).
        stdio: withBindFds(
          ["pipe", "pipe", "pipe", ...(confined ? ["pipe" as const] : [])],
          inner.binds,
        ),
        windowsHide: true,
      });
    } finally {
      inner.binds?.close();
    }
    noteOwnChild(child.pid); // synchronously: never taken for an adopted orphan
    this.#child = child;
    (child.stdio[SANDBOX_INFO_FD] as Readable | null | undefined)?.resume();
    if (child.pid === undefined) {
      disarmDeadMan(this.#tag);
      const code = await new Promise<string | undefined>((resolve) => {
        child.once("error", (e: Error & { code?: string }) => resolve(e.code));
      });
      await this.#opts.guard?.settle({ exitCode: null, signal: null });
      throw new SpawnError(spawnFailureFromCode(code));
    }
    bindDeadMan(this.#tag, child.pid);
    this.record = recordProcess(child.pid);
    live.add(this.record);
    installExitHook();
    child.on("error", () => {});
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.once("exit", () => disarmDeadMan(this.#tag));
    // A leader that exits while a descendant holds stdout open still ends the connection.
    child.once("exit", () => setTimeout(() => void this.close(), 200).unref?.());
    this.#opts.guard?.watch(this.record, (kind) => {
      this.limitHit ??= kind;
      void this.close();
    }, this.#tag);
    child.stdin!.on("error", () => {});
    child.stderr!.resume(); // never forwarded: may hold values; stdout is the protocol
    child.stdout!.on("data", (chunk: Buffer) => this.#onData(chunk));
    child.stdout!.on("error", (e: Error) => this.onerror?.(e));
    child.stdout!.once("close", () => void this.close());
  }

  #onData(chunk: Buffer): void {
    if (!feedLines(this.#buffer, chunk, this)) void this.close();
  }

  /** Whether the server may still receive messages. */
  get alive(): boolean {
    const c = this.#child;
    return c !== undefined && !this.#closing && c.exitCode === null && c.signalCode === null &&
      !(c.stdin?.destroyed ?? true);
  }

  /** Bytes written to the server's stdin that it has not read yet. */
  get pendingBytes(): number {
    return this.#child?.stdin?.writableLength ?? 0;
  }

  /**
   * Write one message to the server; rejects with {@link NotDeliveredError} when it is
   * gone. A server that leaves more than `maxBufferBytes` unread is disconnected: the SDK
   * answers each request the server sends (a `ping`, a method toolhost does not serve)
   * without waiting for the pipe, so one that floods requests and never reads would
   * otherwise grow this process's memory without bound.
   */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || !this.alive) return Promise.reject(new NotDeliveredError());
    if (stdin.writableLength > (this.#opts.maxBufferBytes ?? DEFAULT_BUFFER_BYTES)) {
      void this.close();
      return Promise.reject(new NotDeliveredError());
    }
    if (stdin.write(frameBytes(message))) return Promise.resolve();
    // One listener for every writer waiting on the same drain.
    this.#drained ??= new Promise<void>((resolve) => {
      stdin.once("drain", () => {
        this.#drained = undefined;
        resolve();
      });
    });
    return this.#drained;
  }

  /**
   * Close stdin, give the server a moment to exit on its own, then terminate the whole
   * group and confirm it is empty (`cleanup`). Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const child = this.#child;
    if (child && this.record) {
      try {
        child.stdin?.end();
      } catch { /* already closed */ }
      const waitMs = this.#opts.exitWaitMs ?? 1000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#exited,
        new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
      ]);
      clearTimeout(timer);
      const graceMs = this.limitHit ? 0 : this.#opts.graceMs ?? 2000;
      // A sandbox ends by its PID namespace: SIGTERM inside, the grace, then everything
      // inside goes with its init.
      if (this.#opts.confine !== undefined) await endSandbox(this.record, graceMs);
      const ended = await terminateGroup(this.record, { graceMs });
      // The group is gone; so must be anything of it that left with setsid.
      const { pid, startTime } = this.record;
      const tagged = await reapEscapesConfirmed({ tag: this.#tag, pid, startTime });
      // And what left untagged, re-parented to this process (a child subreaper).
      const reaped = await endAdoptedOf(this.record) && tagged;
      this.cleanup = { ...ended, confirmed: ended.confirmed && reaped };
      if (this.cleanup.confirmed) live.delete(this.record);
      const hit = await this.#opts.guard?.settle({
        exitCode: child.exitCode,
        signal: child.signalCode,
      });
      if (hit) this.limitHit ??= hit;
      child.stdout?.destroy();
      child.stderr?.destroy();
    } else await this.#opts.guard?.settle({ exitCode: null, signal: null }); // never spawned
    this.#buffer.clear();
    if (!this.#closedNotified) {
      this.#closedNotified = true;
      this.onclose?.();
    }
  }
}
