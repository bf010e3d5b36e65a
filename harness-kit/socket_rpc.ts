/**
 * One-line JSON requests over a Unix socket in the session directory: the session's
 * start process serves them, short-lived bound-tool processes send them. Each
 * connection carries one request line and one reply line.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { join, relative } from "node:path";
import process from "node:process";
import { loadFs } from "./lazy_fs.ts";

/** The socket's file name inside the session directory. */
export const SOCKET_NAME = "harness.sock";

/** Longest socket path Linux accepts (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** Most bytes of one request line (arguments are at most 64 KiB). */
export const MAX_REQUEST_LINE = 1024 * 1024;

/** Most bytes of one reply line (a result is at most 8 MiB, plus images as base64). */
export const MAX_REPLY_LINE = 64 * 1024 * 1024;

/**
 * The socket path for a session directory: absolute when it fits Linux's 107-byte limit,
 * else relative to `cwd` (start and bound tools share the Artifact's cwd, so deep state
 * directories still work as long as the harness does not change directory). Throws when
 * neither fits.
 *
 * @example
 * ```ts
 * import { socketPath } from "./socket_rpc.ts";
 * socketPath("/s/d", "/"); // "/s/d/harness.sock"
 * ```
 */
export function socketPath(sessionDir: string, cwd: string = process.cwd()): string {
  const abs = join(sessionDir, SOCKET_NAME);
  if (Buffer.byteLength(abs) <= MAX_SOCKET_PATH) return abs;
  const rel = relative(cwd, abs);
  if (Buffer.byteLength(rel) > MAX_SOCKET_PATH) {
    throw new Error(
      "the session directory's path is too long for a Unix socket; use a shorter state directory",
    );
  }
  return rel;
}

/** Read one newline-terminated line (or everything until the end) from a socket. */
function readLine(socket: Socket, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (err?: Error) => {
      socket.removeAllListeners("data");
      if (err) return reject(err);
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    socket.on("data", (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      const part = nl >= 0 ? chunk.subarray(0, nl) : chunk;
      total += part.byteLength;
      if (total > maxBytes) return done(new Error("the message is too large"));
      chunks.push(part);
      if (nl >= 0) done();
    });
    socket.once("end", () => done());
    socket.once("error", (e) => done(e));
  });
}

/** A running line server. */
export interface LineServer {
  /** Stop accepting connections (without waiting for open ones) and remove the socket file. */
  close(): Promise<void>;
}

/** Handles one request; `after` runs once the reply was written. */
export type LineHandler = (message: unknown) => Promise<{ reply: unknown; after?: () => void }>;

/**
 * Serve one-line JSON requests on `path` (a stale socket file is replaced).
 *
 * @example
 * ```ts
 * import { serveLines } from "./socket_rpc.ts";
 * const server = await serveLines("/tmp/x.sock", (m) => Promise.resolve({ reply: m }));
 * await server.close();
 * ```
 */
export async function serveLines(path: string, handle: LineHandler): Promise<LineServer> {
  const server: Server = createServer((socket) => {
    socket.on("error", () => {});
    readLine(socket, MAX_REQUEST_LINE)
      .then((line) => handle(JSON.parse(line)))
      .catch((e) => ({ reply: { error: e instanceof Error ? e.message : "the request failed" } }))
      .then(({ reply, after }: { reply: unknown; after?: () => void }) => {
        socket.end(`${JSON.stringify(reply)}\n`, () => after?.());
      });
  });
  // A file left at `path` (a harness that died) is removed, then listening is retried; node:fs
  // is loaded only then and on close, not on the way to readiness.
  if (!await listen(server, path, true)) {
    (await loadFs()).unlinkSync(path);
    await listen(server, path, false);
  }
  return {
    close: async () => {
      server.close(); // stops accepting; connections being served finish normally
      try {
        (await loadFs()).unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}

/** Listen on `path`; false when something is already there and `inUseOk`. */
function listen(server: Server, path: string, inUseOk: boolean): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const onError = (e: Error & { code?: string }) => {
      if (inUseOk && e.code === "EADDRINUSE") resolve(false);
      else reject(e);
    };
    server.once("error", onError);
    server.listen(path, () => {
      server.off("error", onError);
      resolve(true);
    });
  });
}

/**
 * Send one request line to `path` and return the parsed reply.
 *
 * @example
 * ```ts
 * import { requestLine } from "./socket_rpc.ts";
 * // const reply = await requestLine("/tmp/x.sock", { op: "stop" });
 * ```
 */
export function requestLine(
  path: string,
  message: unknown,
  maxBytes = MAX_REPLY_LINE,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.write(`${JSON.stringify(message)}\n`);
      readLine(socket, maxBytes).then((line) => {
        socket.destroy();
        try {
          resolve(JSON.parse(line));
        } catch {
          reject(new Error("the harness sent no reply"));
        }
      }, reject);
    });
  });
}
