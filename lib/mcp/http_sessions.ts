/**
 * The live MCP sessions of `serve --http` and how they share the cap: a new client is
 * always served while any session is idle — the least recently used idle session is
 * evicted (its registry closed with full cleanup: tool sessions stopped, processes
 * confirmed gone) and its client's next request gets 404, the protocol's "session not
 * found", so it can initialize again. A session with a call in flight is never evicted;
 * when every session is busy, a new client gets 503 with `Retry-After`. Sessions idle past
 * the idle timeout are closed too. A `GET` event stream held open is not a call: it keeps
 * neither eviction nor the idle timeout away.
 *
 * @module
 */

import type { ReplyBacklog } from "./http_backlog.ts";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ServerResponse } from "node:http";
import { setImmediate } from "node:timers";
import { InvocationError } from "../errors/errors.ts";
import type { ToolhostMcpServer } from "./server.ts";

/** Default most concurrent sessions. */
export const DEFAULT_MAX_SESSIONS = 128;
/** Default idle timeout, ms (15 minutes). */
export const DEFAULT_IDLE_TIMEOUT_MS = 15 * 60 * 1000;
/** Largest accepted `maxSessions`. */
export const MAX_SESSIONS_LIMIT = 65_536;
/** Largest accepted idle timeout, ms (24 hours). */
export const MAX_IDLE_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** `Retry-After` of a 503 when every session is busy, seconds. */
export const RETRY_AFTER_SECONDS = 5;

/** The session cap and idle timeout, validated. */
export interface SessionLimits {
  /** Most concurrent sessions, 1..{@link MAX_SESSIONS_LIMIT}. */
  maxSessions: number;
  /** Idle timeout, ms, 1..{@link MAX_IDLE_TIMEOUT_MS}. */
  idleTimeoutMs: number;
}

/**
 * Validate the cap and the idle timeout (defaults 128 and 15 minutes). Throws
 * {@link InvocationError} naming the option.
 *
 * @example
 * ```ts
 * import { checkSessionLimits } from "./http_sessions.ts";
 * checkSessionLimits({ maxSessions: 3 }); // { maxSessions: 3, idleTimeoutMs: 900000 }
 * ```
 */
export function checkSessionLimits(
  o: { maxSessions?: number; idleTimeoutMs?: number },
): SessionLimits {
  const maxSessions = o.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleTimeoutMs = o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  if (!Number.isInteger(maxSessions) || maxSessions < 1 || maxSessions > MAX_SESSIONS_LIMIT) {
    throw new InvocationError(
      `--max-sessions takes a whole number from 1 to ${MAX_SESSIONS_LIMIT}, e.g. --max-sessions 32.`,
    );
  }
  if (
    !Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 1 || idleTimeoutMs > MAX_IDLE_TIMEOUT_MS
  ) {
    throw new InvocationError(
      "--session-idle-timeout takes a duration from 1s to 24h, e.g. --session-idle-timeout 15m.",
    );
  }
  return { maxSessions, idleTimeoutMs };
}

/** One live MCP session. */
export interface PoolSession {
  /** Its MCP server (owns the registry). */
  mcp: ToolhostMcpServer;
  /** Its transport. */
  transport: StreamableHTTPServerTransport;
  /** When a request last started or reached the MCP server, ms since the epoch. */
  lastSeen: number;
  /** Requests (not a `GET` event stream) not yet handed to the MCP server. */
  calls: number;
  /** Its responses' unsent bytes (http_backlog.ts). */
  replies?: ReplyBacklog;
  /** Set once the session is ending. */
  closing?: Promise<void>;
}

/**
 * The live sessions, the cap, eviction and the idle sweep (see the module documentation).
 *
 * @example
 * ```ts
 * import { SessionPool } from "./http_sessions.ts";
 * const pool = new SessionPool({ maxSessions: 3, idleTimeoutMs: 60_000 });
 * if (await pool.reserve()) {
 *   // open the session, pool.add(id, session) once initialized, then pool.release()
 *   pool.release();
 * }
 * ```
 */
export class SessionPool {
  /** Live sessions by id. */
  readonly live: Map<string, PoolSession> = new Map();
  readonly #limits: SessionLimits;
  readonly #log?: (line: string) => void;
  #pending = 0;
  #evicting = 0;

  /** A pool with these limits; `log` gets value-free lines. */
  constructor(limits: SessionLimits, log?: (line: string) => void) {
    this.#limits = limits;
    this.#log = log;
  }

  /**
   * Reserve a slot for a new session: free, or made free by evicting the least recently
   * used idle session (resolves once its cleanup ended). False when every session is busy.
   * Call {@link release} once the new session is added or given up.
   */
  async reserve(): Promise<boolean> {
    if (this.live.size + this.#pending + this.#evicting < this.#limits.maxSessions) {
      this.#pending++;
      return true;
    }
    const victim = this.#leastRecentIdle();
    if (victim === undefined) return false;
    this.#pending++;
    this.#evicting++;
    this.live.delete(victim[0]);
    this.#log?.(`session evicted: ${this.#limits.maxSessions} live, least recently used idle`);
    try {
      await Promise.all([this.end(victim[0], victim[1]), victim[1].transport.close()]);
    } catch {
      this.#log?.("cleanup of the evicted session was NOT confirmed");
    } finally {
      this.#evicting--;
    }
    return true;
  }

  /** Give back a slot from {@link reserve}. */
  release(): void {
    this.#pending--;
  }

  /** Add an initialized session. */
  add(id: string, s: PoolSession): void {
    this.live.set(id, s);
    this.#log?.(`session opened (${this.live.size} live)`);
  }

  /** End a session (idempotent): out of the pool, its MCP server shut down with cleanup. */
  end(id: string | undefined, s: PoolSession): Promise<void> {
    if (id !== undefined && this.live.get(id) === s) this.live.delete(id);
    s.closing ??= s.mcp.shutdown().then(() => this.#log?.("session closed; cleanup confirmed"));
    return s.closing;
  }

  /**
   * Run `fn`, the handling of one request of `s`, keeping `s` busy (not evictable) until
   * its messages reached the MCP server: when `res` sends its headers (plus one turn of
   * the event loop, so a tool call is counted in flight by then), or when `fn` ends.
   * A request's response stream may stay open long after (a cancelled call gets no
   * response): from then on the MCP server's own in-flight count says whether it is busy.
   */
  async track(s: PoolSession, fn: () => Promise<void>, res?: ServerResponse): Promise<void> {
    s.calls++;
    s.lastSeen = Date.now();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      s.calls--;
      s.lastSeen = Date.now();
    };
    if (res !== undefined) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        setImmediate(finish);
        return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as typeof res.writeHead;
    }
    try {
      await fn();
    } finally {
      finish();
    }
  }

  /** Close every session idle longer than the idle timeout. */
  sweepIdle(now: number = Date.now()): void {
    for (const [id, s] of [...this.live]) {
      if (idle(s) && now - s.lastSeen > this.#limits.idleTimeoutMs) {
        void this.end(id, s).catch(() => {});
        void s.transport.close().catch(() => {});
      }
    }
  }

  #leastRecentIdle(): [string, PoolSession] | undefined {
    let best: [string, PoolSession] | undefined;
    for (const entry of this.live) {
      if (idle(entry[1]) && (best === undefined || entry[1].lastSeen < best[1].lastSeen)) {
        best = entry;
      }
    }
    return best;
  }
}

/** No request on its way in, no call in flight (an open response stream is not one), not ending. */
function idle(s: PoolSession): boolean {
  return s.calls === 0 && s.mcp.inFlight === 0 && s.closing === undefined;
}
