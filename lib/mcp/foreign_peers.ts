/**
 * `serve --http` without a token serves only the user running it (peer_uid.ts): another
 * local user's connection is answered 403 and closed as soon as it is accepted.
 *
 * @module
 */

import type { Server } from "node:http";
import type { Socket } from "node:net";
import { sameUserPeer } from "./peer_uid.ts";

/**
 * What another user's connection to a server without a token is told (with 403).
 *
 * @example
 * ```ts
 * import { FOREIGN_PEER_MESSAGE } from "./foreign_peers.ts";
 * FOREIGN_PEER_MESSAGE.startsWith("Forbidden"); // true
 * ```
 */
export const FOREIGN_PEER_MESSAGE = "Forbidden: only the user serving may connect without a token";

/**
 * Without a token only the serving user may connect (peer_uid.ts). Another user's
 * connection is answered 403 and closed as soon as its owner is known, on accept, before
 * a byte of its request is needed: answered only after its headers, a connection held
 * open silent (or fed a header line at a time) kept a descriptor of this process until
 * the header timeout, a minute, and a flood of them left none for the tools' pipes and
 * sandboxes. The request handler's own check stays (the verdict is remembered per socket).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { closeForeignPeers } from "./foreign_peers.ts";
 * const server = createServer((_req, res) => res.end("ok"));
 * closeForeignPeers(server); // before it listens
 * ```
 */
export function closeForeignPeers(server: Server): void {
  server.on("connection", (socket: Socket) => {
    void sameUserPeer(socket).then((same) => {
      if (same || socket.destroyed) return;
      socket.end(FOREIGN_PEER_RESPONSE, () => socket.destroy());
      // A peer that never reads still loses the connection.
      setTimeout(() => socket.destroy(), FOREIGN_PEER_LINGER_MS).unref?.();
    });
  });
}

/** The whole HTTP response a foreign peer gets, written straight to its socket. */
const FOREIGN_PEER_RESPONSE = (() => {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    error: { code: -32001, message: FOREIGN_PEER_MESSAGE },
    id: null,
  });
  const length = new TextEncoder().encode(body).byteLength;
  return "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n" +
    `Content-Length: ${length}\r\nConnection: close\r\n\r\n${body}`;
})();

/** How long a foreign peer's 403 may take to be flushed before its socket is destroyed, ms. */
const FOREIGN_PEER_LINGER_MS = 1000;
