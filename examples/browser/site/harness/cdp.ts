/**
 * A minimal Chrome DevTools Protocol client over Chromium's pipe
 * (`--remote-debugging-pipe`: NUL-terminated JSON messages, commands on the browser's fd 3,
 * replies and events on its fd 4): no dependency, no `WebSocket` (Node 20 has none by
 * default) and no DevTools port another local process could connect to. Commands are
 * routed to a flattened target session, events delivered to listeners; every command has
 * a deadline; a closed pipe fails the pending ones; a message is at most 32 MiB.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";

/** Largest DevTools message (a 4 MiB PNG is ~5.6 MB of base64). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** A CDP event listener. */
export type CdpListener = (params: Record<string, unknown>, sessionId?: string) => void;

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** A connection to a browser's DevTools pipe. */
export class Cdp {
  #out: Writable;
  #input: Readable;
  #next = 1;
  #pending = new Map<number, Pending>();
  #listeners = new Map<string, Set<CdpListener>>();
  #closed = false;
  #chunks: Buffer[] = [];
  #size = 0;

  /**
   * Talk over `out` (the browser's fd 3) and `input` (its fd 4).
   *
   * @example
   * ```ts ignore
   * const child = spawn("chromium", ["--headless=new", "--remote-debugging-pipe"], {
   *   stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"],
   * });
   * const cdp = new Cdp(child.stdio[3] as Writable, child.stdio[4] as Readable);
   * await cdp.send("Browser.getVersion");
   * ```
   */
  constructor(out: Writable, input: Readable) {
    this.#out = out;
    this.#input = input;
    out.on("error", () => this.#fail("the browser closed its DevTools pipe"));
    input.on("data", (chunk: Buffer) => this.#data(chunk));
    input.on("close", () => this.#fail("the browser closed its DevTools pipe"));
    input.on("error", () => this.#fail("the browser closed its DevTools pipe"));
  }

  #data(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.#chunks.push(chunk.subarray(start, end));
      this.#receive(Buffer.concat(this.#chunks).toString("utf8"));
      this.#chunks = [];
      this.#size = 0;
      start = end + 1;
    }
    if (start === chunk.length) return;
    this.#chunks.push(chunk.subarray(start));
    this.#size += chunk.length - start;
    if (this.#size > MAX_MESSAGE_BYTES) {
      this.#fail("the browser sent an oversized DevTools message");
      this.#input.destroy();
    }
  }

  /** Send a command (to `sessionId`'s target when given); rejects after `timeoutMs`. */
  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
    timeoutMs = 30_000,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(new Error("the browser connection is closed"));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`the browser did not answer ${method} in time`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      const msg = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
      this.#out.write(msg + "\0");
    });
  }

  /** Listen to an event by method name; returns a function that stops listening. */
  on(method: string, listener: CdpListener): () => void {
    let set = this.#listeners.get(method);
    if (set === undefined) this.#listeners.set(method, set = new Set());
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Close the connection (pending commands fail). */
  close(): void {
    this.#fail("the browser connection was closed");
    this.#out.destroy();
    this.#input.destroy();
  }

  #receive(raw: string): void {
    let msg: {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: Record<string, unknown>;
      error?: { message?: string };
      sessionId?: string;
    };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg.id === "number") {
      const p = this.#pending.get(msg.id);
      if (p === undefined) return;
      this.#pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) {
        p.reject(new Error(`browser error: ${String(msg.error.message).slice(0, 200)}`));
      } else p.resolve(msg.result ?? {});
      return;
    }
    if (typeof msg.method === "string") {
      for (const l of this.#listeners.get(msg.method) ?? []) l(msg.params ?? {}, msg.sessionId);
    }
  }

  #fail(reason: string): void {
    this.#closed = true;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.#pending.clear();
  }
}
