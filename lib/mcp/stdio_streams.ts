/**
 * The streams `toolhost serve` speaks MCP on. When fd 0 / fd 1 are pipes or sockets (what
 * every MCP client hands a server it spawns), they are opened as `net.Socket`s of their
 * own: on Deno, `process.stdin`/`process.stdout` go through a slower general path (about
 * twice the CPU per message in a ping-pong), while a pipe socket is polled directly, as
 * Node does. Anything else (a file, a TTY) uses `process.stdin`/`process.stdout`.
 *
 * @module
 */

import fs from "node:fs";
import net from "node:net";
import process from "node:process";
import type { Readable, Writable } from "node:stream";

/** How long {@link StdioStreams.release} waits for queued output. */
export const FLUSH_TIMEOUT_MS = 2000;

/** The protocol streams of one stdio connection. */
export interface StdioStreams {
  /** Protocol input. */
  input: Readable;
  /** Protocol output. */
  output: Writable;
  /**
   * Flush queued output (bounded by {@link FLUSH_TIMEOUT_MS}), close an output socket and
   * destroy the input that was opened, so nothing keeps the process alive.
   */
  release(): Promise<void>;
}

/**
 * Open the process's stdio for the protocol. `which` says which of the two to open
 * (default both); a stream not opened is the process's own.
 *
 * @example
 * ```ts
 * import { openStdioStreams } from "./stdio_streams.ts";
 * const io = openStdioStreams();
 * io.output.write('{"jsonrpc":"2.0","method":"notifications/x"}\n');
 * await io.release();
 * ```
 */
export function openStdioStreams(
  which: { input?: boolean; output?: boolean } = {},
): StdioStreams {
  const wantInput = which.input !== false;
  const output = which.output === false ? undefined : pipeSocket(1, "write");
  const input = wantInput ? pipeSocket(0, "read") ?? process.stdin : undefined;
  return {
    input: input ?? process.stdin,
    output: output ?? process.stdout,
    async release() {
      if (output) await flush(output);
      input?.destroy(); // lets the process exit: nothing keeps reading stdin
    },
  };
}

/** A socket over `fd` when it is a pipe or a socket; undefined otherwise. */
function pipeSocket(fd: number, mode: "read" | "write"): net.Socket | undefined {
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch {
    return undefined;
  }
  if (!st.isFIFO() && !st.isSocket()) return undefined;
  try {
    const readable = mode === "read";
    return new net.Socket({ fd, readable, writable: !readable, allowHalfOpen: true });
  } catch {
    return undefined; // this runtime cannot wrap the descriptor; use the process streams
  }
}

function flush(output: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      output.destroy();
      resolve();
    };
    const timer = setTimeout(done, FLUSH_TIMEOUT_MS);
    if (output.destroyed || output.writableFinished) return done();
    output.once("error", done);
    output.end(done);
  });
}
