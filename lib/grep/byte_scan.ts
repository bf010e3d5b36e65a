/**
 * Fast byte scanning over a private working area: count/find a byte, find the last
 * occurrence, and find a literal. Backed by a small WebAssembly SIMD module (about
 * 6–10 GB/s on one core) with a plain JavaScript fallback when SIMD is unavailable.
 *
 * Each scanner owns its memory, so concurrent calls never share buffers. Files are read
 * straight into {@linkcode ByteScanner.data} with `fs.readSync`, so no copy is made.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { SCAN_WASM_BASE64 } from "./scan_wasm.ts";

/** Bytes reserved at the start of the memory for literals. */
const LITERAL_AREA = 64 * 1024;
const PAGE = 64 * 1024;

interface ScanExports {
  mem: WebAssembly.Memory;
  count(p: number, n: number, b: number): number;
  find(p: number, n: number, b: number): number;
  findLast(p: number, n: number, b: number): number;
  findLit(p: number, n: number, lp: number, ln: number): number;
  findLitFold(p: number, n: number, lp: number, ln: number, mp: number): number;
}

/** A literal to search for; `mask` bytes are ORed into the data before comparing. */
export interface ScanLiteral {
  /** The literal bytes (already ORed with `mask` when a mask is given). */
  bytes: Uint8Array;
  /** Per-byte OR mask (0x20 on ASCII letters: ASCII case-insensitive), or null. */
  mask: Uint8Array | null;
}

let cachedModule: WebAssembly.Module | null | undefined;

function scanModule(): WebAssembly.Module | null {
  if (cachedModule !== undefined) return cachedModule;
  try {
    const bytes = Buffer.from(SCAN_WASM_BASE64, "base64");
    cachedModule = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    cachedModule = null;
  }
  return cachedModule;
}

/** A byte scanner with its own working area. All offsets are relative to `data()`. */
export interface ByteScanner {
  /** True when the SIMD module is in use (false: JavaScript fallback). */
  readonly simd: boolean;
  /** Ensure the working area holds at least `bytes` bytes; returns the (new) data view. */
  reserve(bytes: number): Uint8Array;
  /** The working area (invalidated by a later `reserve` that grows it). */
  data(): Uint8Array;
  /** Number of bytes equal to `byte` in `[start, end)`. */
  count(start: number, end: number, byte: number): number;
  /** Index of the first `byte` in `[start, end)`, or -1. */
  find(start: number, end: number, byte: number): number;
  /** Index of the last `byte` in `[start, end)`, or -1. */
  findLast(start: number, end: number, byte: number): number;
  /** Store literals to search for with `findLiteral` (total at most 64 KiB). */
  setLiterals(literals: ScanLiteral[]): void;
  /** Index of the first occurrence of literal `which` in `[start, end)`, or -1. */
  findLiteral(which: number, start: number, end: number): number;
}

class WasmScanner implements ByteScanner {
  readonly simd = true;
  #ex: ScanExports;
  #view: Uint8Array;
  #lits: Array<[number, number, number]> = [];

  constructor(mod: WebAssembly.Module) {
    this.#ex = new WebAssembly.Instance(mod).exports as unknown as ScanExports;
    this.#view = new Uint8Array(this.#ex.mem.buffer, LITERAL_AREA);
  }
  reserve(bytes: number): Uint8Array {
    const need = LITERAL_AREA + bytes + 64;
    const have = this.#ex.mem.buffer.byteLength;
    if (need > have) this.#ex.mem.grow(Math.ceil((need - have) / PAGE));
    if (this.#view.buffer !== this.#ex.mem.buffer || this.#view.byteLength === 0) {
      this.#view = new Uint8Array(this.#ex.mem.buffer, LITERAL_AREA);
    }
    return this.#view;
  }
  data(): Uint8Array {
    return this.#view.buffer === this.#ex.mem.buffer ? this.#view : this.reserve(0);
  }
  count(start: number, end: number, byte: number): number {
    return end <= start ? 0 : this.#ex.count(LITERAL_AREA + start, end - start, byte);
  }
  find(start: number, end: number, byte: number): number {
    if (end <= start) return -1;
    const r = this.#ex.find(LITERAL_AREA + start, end - start, byte);
    return r < 0 ? -1 : r - LITERAL_AREA;
  }
  findLast(start: number, end: number, byte: number): number {
    if (end <= start) return -1;
    const r = this.#ex.findLast(LITERAL_AREA + start, end - start, byte);
    return r < 0 ? -1 : r - LITERAL_AREA;
  }
  setLiterals(literals: ScanLiteral[]): void {
    const mem = new Uint8Array(this.#ex.mem.buffer, 0, LITERAL_AREA);
    let at = 0;
    this.#lits = [];
    for (const lit of literals) {
      const len = lit.bytes.length;
      if (len === 0 || at + 2 * len > LITERAL_AREA) throw new RangeError("literal area");
      mem.set(lit.bytes, at);
      if (lit.mask) mem.set(lit.mask, at + len);
      this.#lits.push([at, len, lit.mask ? at + len : -1]);
      at += lit.mask ? 2 * len : len;
    }
  }
  findLiteral(which: number, start: number, end: number): number {
    const [lp, ln, mp] = this.#lits[which];
    if (end - start < ln) return -1;
    const p = LITERAL_AREA + start;
    const r = mp < 0
      ? this.#ex.findLit(p, end - start, lp, ln)
      : this.#ex.findLitFold(p, end - start, lp, ln, mp);
    return r < 0 ? -1 : r - LITERAL_AREA;
  }
}

class JsScanner implements ByteScanner {
  readonly simd = false;
  #buf: Buffer = Buffer.alloc(0);
  #lits: ScanLiteral[] = [];

  reserve(bytes: number): Uint8Array {
    if (bytes > this.#buf.length) {
      const next = Buffer.alloc(Math.max(bytes, this.#buf.length * 2));
      next.set(this.#buf);
      this.#buf = next;
    }
    return this.#buf;
  }
  data(): Uint8Array {
    return this.#buf;
  }
  count(start: number, end: number, byte: number): number {
    let n = 0;
    const b = this.#buf;
    for (let i = start; i < end; i++) if (b[i] === byte) n++;
    return n;
  }
  find(start: number, end: number, byte: number): number {
    const r = this.#buf.indexOf(byte, start);
    return r >= 0 && r < end ? r : -1;
  }
  findLast(start: number, end: number, byte: number): number {
    if (end <= start) return -1;
    const r = this.#buf.lastIndexOf(byte, end - 1);
    return r >= start ? r : -1;
  }
  setLiterals(literals: ScanLiteral[]): void {
    this.#lits = literals.map((l) => ({ bytes: Buffer.from(l.bytes), mask: l.mask }));
  }
  findLiteral(which: number, start: number, end: number): number {
    const { bytes, mask } = this.#lits[which];
    if (!mask) {
      const r = this.#buf.subarray(0, end).indexOf(bytes, start);
      return r >= 0 ? r : -1;
    }
    const b = this.#buf;
    outer: for (let i = start; i + bytes.length <= end; i++) {
      for (let j = 0; j < bytes.length; j++) {
        if ((b[i + j] | mask[j]) !== bytes[j]) continue outer;
      }
      return i;
    }
    return -1;
  }
}

/** Options of {@linkcode createByteScanner}. */
export interface ByteScannerOptions {
  /** Force the JavaScript fallback (tests). Default false. */
  forceJs?: boolean;
}

/**
 * Create a scanner with its own working area.
 *
 * @example
 * ```ts
 * import { createByteScanner } from "./byte_scan.ts";
 * const s = createByteScanner();
 * const data = s.reserve(4);
 * data.set([97, 10, 98, 10]);
 * console.log(s.count(0, 4, 10)); // 2
 * ```
 */
export function createByteScanner(options: ByteScannerOptions = {}): ByteScanner {
  const mod = options.forceJs ? null : scanModule();
  return mod ? new WasmScanner(mod) : new JsScanner();
}

const POOL_LIMIT = 4;
const pool: ByteScanner[] = [];

/**
 * Run `use` with a scanner from a small pool: instantiating the wasm module and growing
 * its memory costs more than a whole small read, so scanners are reused. A scanner is
 * only ever used by one caller at a time; at most four idle ones are kept. Pass a
 * synchronous `use` (or one that returns a value when it needs no await) to give the
 * scanner back before any other task runs.
 *
 * @example
 * ```ts
 * import { withByteScanner } from "./byte_scan.ts";
 * const n = await withByteScanner((s) => {
 *   const data = s.reserve(2);
 *   data.set([10, 10]);
 *   return s.count(0, 2, 10);
 * }); // 2
 * ```
 */
export function withByteScanner<T>(use: (s: ByteScanner) => T | Promise<T>): Promise<T> {
  const s = pool.pop() ?? createByteScanner();
  let out: T | Promise<T>;
  try {
    out = use(s);
  } catch (e) {
    release(s);
    return Promise.reject(e);
  }
  // A use that finished synchronously gives its scanner back at once, so concurrent calls
  // (a client pipelining reads) share one instead of each instantiating the module.
  if (!(out instanceof Promise)) {
    release(s);
    return Promise.resolve(out);
  }
  return out.finally(() => release(s));
}

function release(s: ByteScanner): void {
  if (pool.length < POOL_LIMIT) pool.push(s);
}
