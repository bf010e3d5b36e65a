/**
 * The line splitting of MCP's stdio transport without the SDK: the SDK's `ReadBuffer`
 * (the same bound, error and splitting, a trailing `\r` dropped) up to the parse of a
 * line, which its users do (message_buffer.ts with the SDK's rules, stdio_front.ts
 * before the SDK is loaded).
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
  #buffer?: Buffer;

  /** At most `maxBufferSize` unread bytes (default the SDK's 10 MiB). */
  constructor(opts: { maxBufferSize?: number } = {}) {
    this.#max = opts.maxBufferSize ?? STDIO_MAX_BUFFER_BYTES;
  }

  /** Add input; throws (and drops what was unread) past the bound, as `ReadBuffer` does. */
  append(chunk: Buffer): void {
    const size = (this.#buffer?.length ?? 0) + chunk.length;
    if (size > this.#max) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next complete line (UTF-8, without `\n` and a `\r` before it), or null. */
  readLine(): string | null {
    const buffer = this.#buffer;
    if (!buffer) return null;
    const index = buffer.indexOf(10);
    if (index === -1) return null;
    let line = buffer.toString("utf8", 0, index);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    this.#buffer = index + 1 === buffer.length ? undefined : buffer.subarray(index + 1);
    return line;
  }

  /** Drop unread input. */
  clear(): void {
    this.#buffer = undefined;
  }
}
