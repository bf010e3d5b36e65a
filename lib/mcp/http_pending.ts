/**
 * The connections of `serve --http` that no request has passed the guards on yet (no
 * valid token, no allowed `Host`/`Origin`, no request at all). Anyone who can reach the
 * port can open them, and each holds a descriptor of this process until the HTTP header
 * timeout (a minute) — so many that none is left for the tools' pipes, sandboxes and
 * session sockets. They are bounded: past {@link MAX_PENDING_CONNECTIONS}, the oldest
 * one is closed for each new one. A real client's request passes within milliseconds of
 * its connection, so it is never the oldest for long; a flood closes its own connections.
 * A connection that one request passed on is the client's (its keep-alive reuse included)
 * and is no longer counted.
 *
 * @module
 */

import { InvocationError } from "../errors/errors.ts";

/** What a tracked connection must offer. */
export interface PendingSocket {
  /** Close it at once. */
  destroy(): void;
  /** Listen for its close. */
  once(event: "close", listener: () => void): unknown;
}

/**
 * Most connections without a request that passed the guards; the oldest is closed for
 * each one more.
 *
 * @example
 * ```ts
 * import { MAX_PENDING_CONNECTIONS } from "./http_pending.ts";
 * MAX_PENDING_CONNECTIONS; // 256
 * ```
 */
export const MAX_PENDING_CONNECTIONS = 256;

/**
 * The pending connections of one server (see the module documentation).
 *
 * @example
 * ```ts
 * import { PendingConnections } from "./http_pending.ts";
 * const pending = new PendingConnections(1);
 * const closed: string[] = [];
 * const socket = (name: string) => ({ destroy: () => closed.push(name), once: () => {} });
 * const a = socket("a");
 * pending.add(a);
 * pending.add(socket("b")); // one too many: `a`, the oldest, is closed
 * closed; // ["a"]
 * ```
 */
export class PendingConnections<S extends PendingSocket = PendingSocket> {
  readonly #max: number;
  /** Insertion order is age order. */
  readonly #sockets = new Set<S>();

  /**
   * At most `max` pending connections, 1..65536 (default {@link MAX_PENDING_CONNECTIONS});
   * throws {@link InvocationError} for another value.
   */
  constructor(max: number = MAX_PENDING_CONNECTIONS) {
    if (!Number.isInteger(max) || max < 1 || max > 65_536) {
      throw new InvocationError("maxPendingConnections takes a whole number from 1 to 65536");
    }
    this.#max = max;
  }

  /** Number of pending connections. */
  get size(): number {
    return this.#sockets.size;
  }

  /** Count a new connection as pending, closing the oldest ones past the bound. */
  add(socket: S): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    for (const oldest of this.#sockets) {
      if (this.#sockets.size <= this.#max) break;
      this.#sockets.delete(oldest);
      oldest.destroy();
    }
  }

  /** A request passed the guards on `socket`: it is a client's, no longer pending. */
  admit(socket: S): void {
    this.#sockets.delete(socket);
  }
}
