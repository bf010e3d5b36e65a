/**
 * Who is on the other end of a loopback TCP connection: the owner (uid) of the client's
 * socket, read from `/proc/net/tcp` and `/proc/net/tcp6` (Linux lists every socket with
 * its owner's uid). `serve --http` without a bearer token accepts a loopback connection
 * only from its own user: any other local user can reach a loopback port, and every tool
 * runs with the serving user's full authority.
 *
 * @module
 */

import { closeSync, existsSync, openSync, readSync } from "node:fs";
import process from "node:process";

/** Most bytes read from one socket table (a busy host lists ~150 bytes per socket). */
const MAX_TABLE_BYTES = 32 * 1024 * 1024;

function readBounded(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_TABLE_BYTES) return undefined;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString("latin1");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function portOf(hexAddr: string): number {
  return parseInt(hexAddr.slice(hexAddr.lastIndexOf(":") + 1), 16);
}

/** A loopback address as `/proc/net/tcp{,6}` prints it (IPv4 words in host byte order). */
function isLoopbackHex(hexAddr: string): boolean {
  const a = hexAddr.slice(0, hexAddr.lastIndexOf(":")).toUpperCase();
  if (a.length === 8) return a.endsWith("7F"); // 127.0.0.0/8
  return a === "00000000000000000000000001000000" || // ::1
    (a.startsWith("0000000000000000FFFF0000") && a.endsWith("7F")); // ::ffff:127.x
}

/**
 * Whether this host can tell a loopback peer's uid (Linux with `/proc/net/tcp`).
 *
 * @example
 * ```ts
 * import { canIdentifyPeers } from "./peer_uid.ts";
 * typeof canIdentifyPeers(); // "boolean"
 * ```
 */
export function canIdentifyPeers(): boolean {
  return existsSync("/proc/net/tcp");
}

/**
 * The uid owning the client end of the loopback TCP connection from `clientPort` to this
 * server's `serverPort`, or undefined when no such socket is listed, more than one owner
 * is, or the tables cannot be read.
 *
 * @example
 * ```ts
 * import { peerUid } from "./peer_uid.ts";
 * peerUid(1, 1); // undefined: no such connection
 * ```
 */
export function peerUid(clientPort: number, serverPort: number): number | undefined {
  const uids = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = readBounded(table);
    if (text === undefined) continue;
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8) continue;
      if (portOf(f[1]) !== clientPort || portOf(f[2]) !== serverPort) continue;
      if (!isLoopbackHex(f[1]) || !isLoopbackHex(f[2])) continue;
      const uid = Number(f[7]);
      if (Number.isSafeInteger(uid)) uids.add(uid);
    }
  }
  // Two owners for one loopback port pair cannot be told apart: nobody is named.
  return uids.size === 1 ? [...uids][0] : undefined;
}

const verdicts = new WeakMap<object, boolean>();

/**
 * Whether the peer of `socket` (an accepted loopback TCP connection) runs as this
 * process's user; remembered per socket (a keep-alive connection asks once). True where
 * peers cannot be identified (no `/proc/net/tcp`: not Linux) or uids do not exist.
 *
 * @example
 * ```ts
 * import { sameUserPeer } from "./peer_uid.ts";
 * // if (!sameUserPeer(req.socket)) refuse(403);
 * ```
 */
export function sameUserPeer(
  socket: { remotePort?: number; localPort?: number },
): boolean {
  const known = verdicts.get(socket);
  if (known !== undefined) return known;
  const me = process.getuid?.();
  let ok = true;
  if (me !== undefined && canIdentifyPeers()) {
    const { remotePort, localPort } = socket;
    ok = remotePort !== undefined && localPort !== undefined &&
      peerUid(remotePort, localPort) === me;
  }
  verdicts.set(socket, ok);
  return ok;
}
