/**
 * A minimal Chrome DevTools Protocol client over the web `WebSocket` API (no
 * dependency): one browser connection, commands routed to a flattened target session,
 * events delivered to listeners. Every command has a deadline; closing the socket fails
 * the pending ones.
 *
 * @module
 */

/** A CDP event listener. */
export type CdpListener = (params: Record<string, unknown>, sessionId?: string) => void;

interface Pending {
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** A connection to a browser's DevTools WebSocket. */
export class Cdp {
  #ws: WebSocket;
  #next = 1;
  #pending = new Map<number, Pending>();
  #listeners = new Map<string, Set<CdpListener>>();
  #closed = false;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.onmessage = (e) => this.#receive(String(e.data));
    ws.onclose = () => this.#fail("the browser closed the DevTools connection");
  }

  /**
   * Connect to a DevTools WebSocket URL (`ws://127.0.0.1:PORT/devtools/browser/ID`).
   *
   * @example
   * ```ts ignore
   * const cdp = await Cdp.connect("ws://127.0.0.1:9222/devtools/browser/x");
   * await cdp.send("Browser.getVersion");
   * ```
   */
  static connect(url: string): Promise<Cdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => resolve(new Cdp(ws));
      ws.onerror = () => reject(new Error("could not connect to the browser's DevTools port"));
    });
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
      this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
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
    try {
      this.#ws.close();
    } catch { /* already closed */ }
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
