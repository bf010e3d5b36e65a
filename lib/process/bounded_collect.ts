/**
 * Bounded stream collection with flat memory: keep at most `retainBytes`, count
 * everything, keep draining (and discarding) past the cap, and report overflow once. For
 * streams that are read for as long as their writer lives (a session harness after its
 * ready line), {@linkcode discardPaced} drains and discards at a bounded pace.
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

/** Options of {@linkcode discardPaced}. */
export interface PacedDiscardOptions {
  /** Bytes read per tick; reading pauses for the rest of the tick once reached. */
  bytesPerTick: number;
  /** Tick length, ms. */
  tickMs: number;
}

/**
 * Drain `stream` and discard everything, reading at most about `bytesPerTick` per
 * `tickMs`. The writer is never blocked for good: one that writes faster than the pace is
 * only slowed by pipe backpressure. Because every read makes the runtime allocate a fresh
 * buffer that is freed only by a later garbage collection, an unpaced drain of a writer
 * that never stops lets memory climb as fast as the writer writes; the pace bounds that
 * allocation rate, and with it memory and CPU. The drain ends when the stream ends,
 * closes or errors (destroying it is how an owner stops it; errors are swallowed); the
 * returned function stops it early and leaves the stream paused.
 *
 * @example
 * ```ts
 * import { Readable } from "node:stream";
 * import { discardPaced } from "./bounded_collect.ts";
 * const stream = Readable.from([new Uint8Array(10)]);
 * discardPaced(stream, { bytesPerTick: 1 << 20, tickMs: 100 });
 * ```
 */
export function discardPaced(stream: Readable, options: PacedDiscardOptions): () => void {
  const { bytesPerTick, tickMs } = options;
  let windowStart = Date.now();
  let used = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const resume = () => {
    timer = undefined;
    windowStart = Date.now();
    used = 0;
    if (!stream.destroyed) stream.resume();
  };
  const onData = (chunk: Uint8Array) => {
    const now = Date.now();
    if (timer === undefined && now - windowStart >= tickMs) {
      windowStart = now;
      used = 0;
    }
    used += chunk.byteLength;
    if (used < bytesPerTick || timer !== undefined) return;
    stream.pause();
    timer = setTimeout(resume, Math.max(0, windowStart + tickMs - now));
  };
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
    stream.off("data", onData);
    stream.off("end", stop);
    stream.off("close", stop);
  };
  stream.on("data", onData);
  stream.once("end", stop);
  stream.once("close", stop);
  stream.on("error", stop); // stays: an error on a discarded stream is of no interest
  stream.resume();
  return () => {
    stop();
    stream.pause();
  };
}
