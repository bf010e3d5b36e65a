/**
 * The line splitting of MCP's stdio transport, in linear time: the SDK's `ReadBuffer`
 * (the same bound, error and splitting, a trailing `\r` dropped) up to the parse of a
 * line, which its users do (an extension server's messages in json_rpc_lines.ts,
 * `serve`'s in lib/mcp/message_buffer.ts and stdio_front.ts). It loads nothing of the
 * SDK: `serve` answers its first requests before loading it. The SDK copies everything buffered and
 * searches it again from its start on every chunk, so a long line arriving in pipe-sized
 * chunks costs time quadratic in its length (an 8 MiB line: half a gigabyte copied,
 * seconds of a blocked event loop, and the sender may repeat it). Here each byte is
 * searched once, and a line is copied once, when it is complete.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** The SDK's `STDIO_DEFAULT_MAX_BUFFER_SIZE` (10 MiB; equality is tested). */
export const STDIO_MAX_BUFFER_BYTES = 10 * 1024 * 1024;

/**
 * Buffers a byte stream into lines.
 *
 * @example
 * ```ts
 * import { Buffer } from "node:buffer";
 * import { LineBuffer } from "./line_buffer.ts";
 * const buf = new LineBuffer();
 * buf.append(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n'));
 * buf.readLine(); // '{"jsonrpc":"2.0","id":1,"method":"ping"}'
 * ```
 */
export class LineBuffer {
  #max: number;
  /** The start of the current line: bytes already searched, holding no newline. */
  #parts: Buffer[] = [];
  #partsBytes = 0;
  /** Bytes not searched yet. */
  #rest?: Buffer;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: { maxBufferSize?: number } = {}) {
    this.#max = opts.maxBufferSize ?? STDIO_MAX_BUFFER_BYTES;
  }

  /** Add input; throws (and drops what was unread) past the bound, as `ReadBuffer` does. */
  append(chunk: Buffer): void {
    const rest = this.#rest;
    if (this.#partsBytes + (rest?.length ?? 0) + chunk.length > this.#max) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`);
    }
    // Unread complete lines are rare (readers take every line before appending more).
    this.#rest = rest ? Buffer.concat([rest, chunk]) : chunk;
  }

  /** The next complete line (UTF-8, without `\n` and a `\r` before it), or null. */
  readLine(): string | null {
    const rest = this.#rest;
    if (!rest) return null;
    const index = rest.indexOf(10);
    if (index === -1) {
      this.#parts.push(rest);
      this.#partsBytes += rest.length;
      this.#rest = undefined;
      return null;
    }
    this.#rest = index + 1 === rest.length ? undefined : rest.subarray(index + 1);
    let line: string;
    if (this.#parts.length === 0) line = rest.toString("utf8", 0, index);
    else {
      this.#parts.push(rest.subarray(0, index));
      line = Buffer.concat(this.#parts).toString("utf8");
      this.#parts = [];
      this.#partsBytes = 0;
    }
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  /** Drop unread input. */
  clear(): void {
    this.#parts = [];
    this.#partsBytes = 0;
    this.#rest = undefined;
  }
}
