/**
 * Bounded stream collection with flat memory: keep at most `retainBytes`, count
 * everything, keep draining (and discarding) past the cap, and report overflow once.
 *
 * @module
 */

import type { Readable } from "node:stream";

/** Options of {@linkcode collectBounded}. */
export interface CollectOptions {
  /** Overflow is reported once the total exceeds this many bytes. */
  maxBytes: number;
  /** Bytes kept in memory (the first ones). Default `maxBytes`; 0 discards everything. */
  retainBytes?: number;
  /** Called once, when the total first exceeds `maxBytes`. */
  onOverflow?: () => void;
}

/** A running collection. */
export interface BoundedCollector {
  /** Resolves when the stream ended, closed or errored. */
  readonly done: Promise<void>;
  /** Total bytes seen so far. */
  readonly total: number;
  /** True once the total exceeded `maxBytes`. */
  readonly overflow: boolean;
  /** The retained bytes (at most `retainBytes`), concatenated. */
  bytes(): Uint8Array;
}

class Collector implements BoundedCollector {
  readonly done: Promise<void>;
  total = 0;
  overflow = false;
  #chunks: Uint8Array[] = [];
  #kept = 0;
  #retain: number;
  #max: number;
  #onOverflow?: () => void;

  constructor(stream: Readable, options: CollectOptions) {
    this.#max = options.maxBytes;
    this.#retain = Math.min(options.retainBytes ?? options.maxBytes, options.maxBytes);
    this.#onOverflow = options.onOverflow;
    this.done = new Promise((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });
    stream.on("data", (chunk: Uint8Array) => this.#push(chunk));
  }

  #push(chunk: Uint8Array): void {
    this.total += chunk.byteLength;
    const room = this.#retain - this.#kept;
    if (room > 0) {
      const part = chunk.byteLength <= room ? chunk : chunk.subarray(0, room);
      this.#chunks.push(part);
      this.#kept += part.byteLength;
    }
    if (!this.overflow && this.total > this.#max) {
      this.overflow = true;
      this.#onOverflow?.();
    }
  }

  bytes(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0];
    const out = new Uint8Array(this.#kept);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    this.#chunks = [out];
    return out;
  }
}

/**
 * Start collecting `stream` with a byte cap. Memory stays at `retainBytes` however much
 * the stream produces; the stream is always drained so the writer never blocks.
 *
 * @example
 * ```ts
 * import { Readable } from "node:stream";
 * import { collectBounded } from "./bounded_collect.ts";
 * const c = collectBounded(Readable.from([new Uint8Array(10)]), { maxBytes: 4 });
 * await c.done;
 * console.log(c.total, c.overflow, c.bytes().length); // 10 true 4
 * ```
 */
export function collectBounded(stream: Readable, options: CollectOptions): BoundedCollector {
  return new Collector(stream, options);
}
