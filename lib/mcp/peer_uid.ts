/**
 * Who is on the other end of a loopback TCP connection: the owner (uid) of the client's
 * socket, read from `/proc/net/tcp` and `/proc/net/tcp6` (Linux lists every socket with
 * its owner's uid). `serve --http` without a bearer token accepts a loopback connection
 * only from its own user: any other local user can reach a loopback port, and every tool
 * runs with the serving user's full authority.
 *
 * @module
 */

import { existsSync } from "node:fs";
import { open } from "node:fs/promises";
import process from "node:process";

/** Most bytes read from one socket table (a busy host lists ~150 bytes per socket). */
const MAX_TABLE_BYTES = 32 * 1024 * 1024;
const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"] as const;

async function readBounded(path: string): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(path, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(256 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_TABLE_BYTES) return undefined;
      chunks.push(buf.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks).toString("latin1");
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * Both tables, read by one reader at a time on the thread pool: generating them walks the
 * kernel's whole socket hash (≈ 9 ms per table on a small VM, more with many TIME_WAIT
 * sockets), so lookups that arrive while a read is in flight share the next read instead
 * of each starting their own (a connection flood costs one read at a time, and never
 * blocks the event loop). A read already in flight may have begun before the asker's
 * socket was accepted, so the asker waits for the next one.
 */
let inflight: Promise<(string | undefined)[]> | undefined;
let queued: Promise<(string | undefined)[]> | undefined;

function readTables(): Promise<(string | undefined)[]> {
  const read = () => Promise.all(TABLES.map(readBounded));
  if (inflight === undefined) {
    const mine: Promise<(string | undefined)[]> = read().finally(() => {
      if (inflight === mine) inflight = undefined;
    });
    inflight = mine;
    return mine;
  }
  queued ??= inflight.catch(() => []).then(() => {
    queued = undefined;
    return readTables();
  });
  return queued;
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
 * await peerUid(1, 1); // undefined: no such connection
 * ```
 */
export async function peerUid(clientPort: number, serverPort: number): Promise<number | undefined> {
  return uidIn(await readTables(), clientPort, serverPort);
}

function uidIn(
  texts: readonly (string | undefined)[],
  clientPort: number,
  serverPort: number,
): number | undefined {
  const uids = new Set<number>();
  // Only lines holding the client's port as `:PORT ` are split: a busy host lists
  // thousands of sockets (TIME_WAIT ones too), and splitting every line cost ~9 ms of CPU
  // per connection under the scale-out bench.
  const needle = `:${clientPort.toString(16).toUpperCase().padStart(4, "0")} `;
  for (const text of texts) {
    if (text === undefined) continue;
    const header = text.indexOf("\n");
    for (let at = text.indexOf(needle, header); at !== -1; at = text.indexOf(needle, at + 1)) {
      const start = text.lastIndexOf("\n", at) + 1;
      const end = text.indexOf("\n", at);
      const f = text.slice(start, end === -1 ? text.length : end).trim().split(/\s+/);
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

const verdicts = new WeakMap<object, Promise<boolean>>();

/**
 * Whether the peer of `socket` (an accepted loopback TCP connection) runs as this
 * process's user; remembered per socket (a keep-alive connection asks once). True where
 * peers cannot be identified (no `/proc/net/tcp`: not Linux) or uids do not exist.
 *
 * @example
 * ```ts
 * import { sameUserPeer } from "./peer_uid.ts";
 * await sameUserPeer({ remotePort: 1, localPort: 1 }); // false on Linux: no such connection
 * ```
 */
export function sameUserPeer(
  socket: { remotePort?: number; localPort?: number },
): Promise<boolean> {
  const known = verdicts.get(socket);
  if (known !== undefined) return known;
  const me = process.getuid?.();
  const { remotePort, localPort } = socket;
  const verdict = me === undefined || !canIdentifyPeers()
    ? Promise.resolve(true)
    : remotePort === undefined || localPort === undefined
    ? Promise.resolve(false)
    : peerUid(remotePort, localPort).then((uid) => uid === me, () => false);
  verdicts.set(socket, verdict);
  return verdict;
}
