/**
 * The connections of `serve --http` that a request passed the guards on (the token, the
 * `Host`/`Origin` checks): a client's. Those without one are bounded apart
 * (http_pending.ts); these are bounded too, or a client holding the token could open
 * connections until the process has no descriptor left for its tools' pipes, sandboxes
 * and session sockets — or for other clients.
 *
 * Past {@link MAX_CLIENT_CONNECTIONS} (`--max-connections`), a new one is made room for
 * by closing the admitted connection idle the longest (no request open on it: a
 * keep-alive connection between requests, which its client re-opens when it needs one).
 * When every admitted connection has a request open, the new one is refused: `503` with
 * `Retry-After`, then closed. A request open on a connection is never cut for another,
 * so no session's calls, event stream or reply is starved by a newcomer. What a client
 * can hold open is bounded on its own: a session's event stream (one per session, the
 * SDK's transport), its calls in flight (`maxCallsInFlight`, server.ts), the sessions
 * (`--max-sessions`), a body's arrival (http_body.ts) and a reply's unsent bytes
 * (http_backlog.ts).
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";
import type { PendingSocket } from "./http_pending.ts";

/**
 * Default most admitted connections: room for every session of the default
 * `--max-sessions` (128) with its event stream and several requests at once.
 *
 * @example
 * ```ts
 * import { MAX_CLIENT_CONNECTIONS } from "./http_clients.ts";
 * MAX_CLIENT_CONNECTIONS; // 1024
 * ```
 */
export const MAX_CLIENT_CONNECTIONS = 1024;

/** Largest accepted `--max-connections`. */
export const MAX_CLIENT_CONNECTIONS_LIMIT = 65_536;

/**
 * `max` (default {@link MAX_CLIENT_CONNECTIONS}) when it is a whole number from 1 to
 * {@link MAX_CLIENT_CONNECTIONS_LIMIT}; else throws {@link InvocationError}.
 *
 * @example
 * ```ts
 * import { checkMaxConnections } from "./http_clients.ts";
 * checkMaxConnections(undefined); // 1024
 * ```
 */
export function checkMaxConnections(max: number | undefined): number {
  const n = max ?? MAX_CLIENT_CONNECTIONS;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CLIENT_CONNECTIONS_LIMIT) {
    throw new InvocationError(
      `--max-connections takes a whole number from 1 to ${MAX_CLIENT_CONNECTIONS_LIMIT}, ` +
        "e.g. --max-connections 512.",
    );
  }
  return n;
}

/**
 * The admitted connections of one server (see the module documentation). Each
 * {@link ClientConnections.admit} that returned true is matched by one
 * {@link ClientConnections.done} once that request's response ended.
 *
 * @example
 * ```ts
 * import { ClientConnections } from "./http_clients.ts";
 * const clients = new ClientConnections(1);
 * const closed: string[] = [];
 * const socket = (name: string) => ({ destroy: () => closed.push(name), once: () => {} });
 * const [a, b, c] = [socket("a"), socket("b"), socket("c")];
 * clients.admit(a); // true
 * clients.admit(b); // false: `a` has a request open
 * clients.done(a);
 * clients.admit(c); // true: `a`, idle, is closed for it
 * closed; // ["a"]
 * ```
 */
export class ClientConnections<S extends PendingSocket = PendingSocket> {
  readonly #max: number;
  /** Open requests by connection; insertion order is the order they last went idle. */
  readonly #open = new Map<S, number>();

  /** At most `max` admitted connections (validated as {@link checkMaxConnections} does). */
  constructor(max?: number) {
    this.#max = checkMaxConnections(max);
  }

  /** Number of admitted connections. */
  get size(): number {
    return this.#open.size;
  }

  /**
   * A request passed the guards on `socket`: true when it may be served (it is then open
   * until {@link done}); false when every admitted connection has a request open.
   */
  admit(socket: S): boolean {
    const n = this.#open.get(socket);
    if (n !== undefined) {
      this.#open.set(socket, n + 1);
      return true;
    }
    if (this.#open.size >= this.#max && !this.#closeIdlest()) return false;
    this.#open.set(socket, 1);
    socket.once("close", () => this.#open.delete(socket));
    return true;
  }

  /** The response of a request {@link admit} let through on `socket` ended. */
  done(socket: S): void {
    const n = this.#open.get(socket);
    if (n === undefined) return; // closed meanwhile
    this.#open.delete(socket); // re-inserted last: the most recently idle
    this.#open.set(socket, Math.max(0, n - 1));
  }

  /** Close the connection idle the longest; false when none is idle. */
  #closeIdlest(): boolean {
    for (const [socket, n] of this.#open) {
      if (n > 0) continue;
      this.#open.delete(socket);
      socket.destroy();
      return true;
    }
    return false;
  }
}
