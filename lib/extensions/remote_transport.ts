/**
 * The client side of a remote extension: the SDK's Streamable HTTP client transport (or,
 * for a server that answers as one, the legacy HTTP+SSE transport) wrapped so that a
 * broken connection ends the generation. Any transport error — a response stream cut
 * mid-call, a POST that failed on the network, a failed reconnection — closes it, so
 * every pending request fails at once as "connection closed" instead of waiting for its
 * timeout, and the next call reconnects (with the restart backoff of `ExtensionServer`).
 *
 * Header values named by `bearer_token_env_var` / `env_http_headers` are read from the
 * environment here, at connect time, and go nowhere but into the request headers.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ExtensionDecl } from "../workspace/parse_extensions.ts";
import { boundedFetch } from "./bounded_fetch.ts";
import type { Protector } from "../redact/types.ts";

/**
 * Longest wait for the server to end its session when a remote extension closes, ms.
 *
 * @example
 * ```ts
 * import { TERMINATE_GRACE_MS } from "./remote_transport.ts";
 * TERMINATE_GRACE_MS; // 2000
 * ```
 */
export const TERMINATE_GRACE_MS = 2000;

/**
 * Largest JSON answer, or event of an event stream, read from a remote server: the
 * bound of a stdio server's messages.
 *
 * @example
 * ```ts
 * import { MAX_ANSWER_BYTES } from "./remote_transport.ts";
 * MAX_ANSWER_BYTES; // 16777216
 * ```
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Most messages being sent to a remote server at once (each a POST, holding a
 * connection until the server answers it). The SDK answers every request the server
 * sends (a `ping`, a method toolhost does not serve) without waiting for earlier answers,
 * so a server that streams requests and never answers the POSTs would otherwise open
 * connections until this process runs out of descriptors; past the bound it is
 * disconnected.
 *
 * @example
 * ```ts
 * import { MAX_SENDS_IN_FLIGHT } from "./remote_transport.ts";
 * MAX_SENDS_IN_FLIGHT; // 256
 * ```
 */
export const MAX_SENDS_IN_FLIGHT = 256;

/** Which wire protocol a remote transport speaks. */
export type RemoteKind = "streamable-http" | "sse";

/**
 * The HTTP status of a failed remote request, when it had one.
 *
 * @example
 * ```ts
 * import { httpStatusOf } from "./remote_transport.ts";
 * httpStatusOf(new Error("x")); // undefined
 * ```
 */
export function httpStatusOf(e: unknown): number | undefined {
  if (e instanceof StreamableHTTPError || e instanceof SseError) {
    return typeof e.code === "number" && e.code >= 100 && e.code <= 599 ? e.code : undefined;
  }
  if (e instanceof Error) {
    // The SSE transport's POST failures carry the status only in their message.
    const m = /^Error POSTing to endpoint \(HTTP (\d{3})\)/.exec(e.message);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * The request headers of a remote extension, or the names of the environment variables
 * that are unset.
 *
 * @example
 * ```ts
 * import { remoteHeaders } from "./remote_transport.ts";
 * const decl = { remote: { url: "https://h/mcp", bearerTokenEnvVar: "T", envHttpHeaders: {}, httpHeaders: {} } };
 * remoteHeaders(decl, { T: "abc" }); // { ok: true, headers: { Authorization: "Bearer abc" } }
 * ```
 */
export function remoteHeaders(
  decl: Pick<ExtensionDecl, "remote">,
  env: Record<string, string>,
): { ok: true; headers: Record<string, string> } | { ok: false; missing: string[] } {
  const r = decl.remote;
  const headers: Record<string, string> = { ...(r?.httpHeaders ?? {}) };
  const missing: string[] = [];
  const take = (name: string, variable: string, prefix = "") => {
    const v = env[variable];
    if (v === undefined || v === "" || /[\r\n\0]/.test(v)) missing.push(variable);
    else headers[name] = `${prefix}${v}`;
  };
  for (const [name, variable] of Object.entries(r?.envHttpHeaders ?? {})) take(name, variable);
  if (r?.bearerTokenEnvVar) take("Authorization", r.bearerTokenEnvVar, "Bearer ");
  return missing.length > 0 ? { ok: false, missing } : { ok: true, headers };
}

/**
 * A remote extension's transport; see the module doc.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client";
 * import { RemoteTransport } from "./remote_transport.ts";
 * const t = new RemoteTransport("streamable-http", "https://mcp.example.com/mcp", {});
 * // await new Client({ name: "x", version: "1" }).connect(t);
 * await t.close();
 * ```
 */
export class RemoteTransport implements Transport {
  /** Which protocol it speaks. */
  readonly kind: RemoteKind;
  /** No process: nothing to record or confirm. */
  readonly record: undefined = undefined;
  /** No process: no limit can stop it. */
  readonly limitHit: undefined = undefined;
  /** No process: nothing to clean up. */
  readonly cleanup: undefined = undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly #inner: Transport;
  #closed = false;
  #inFlight = 0;

  /**
   * Create for `url` with `headers` (see {@link remoteHeaders}) and the protected values
   * now (`protect`, default none); nothing is sent yet.
   */
  constructor(
    kind: RemoteKind,
    url: string,
    headers: Record<string, string>,
    protect?: () => Protector | undefined,
  ) {
    this.kind = kind;
    const requestInit = { headers };
    // Every body the SDK reads is bounded, and held when a protected value sits where
    // parsing would rewrite it (bounded_fetch.ts, held_body.ts).
    const fetch = boundedFetch(MAX_ANSWER_BYTES, globalThis.fetch, protect);
    this.#inner = kind === "sse"
      ? new SSEClientTransport(new URL(url), { requestInit, fetch })
      : new StreamableHTTPClientTransport(new URL(url), {
        requestInit,
        fetch,
        // A cut stream ends the generation (see the module doc): no silent resumption.
        reconnectionOptions: {
          maxRetries: 0,
          initialReconnectionDelay: 1000,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
        },
      });
    this.#inner.onmessage = (m) => this.onmessage?.(m);
    this.#inner.onerror = (e) => {
      this.onerror?.(e);
      // An HTTP status is an answer (thrown to the sender as well); anything else is
      // a broken connection.
      if (httpStatusOf(e) === undefined) this.close().catch(() => {});
    };
    this.#inner.onclose = () => this.#ended();
  }

  /** True until the connection broke or was closed. */
  get alive(): boolean {
    return !this.#closed;
  }

  /** The session id the server assigned (Streamable HTTP). */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Start the inner transport. */
  start(): Promise<void> {
    return this.#inner.start();
  }

  /**
   * Send; a failure without an HTTP status (the network) ends the connection, as does a
   * server that leaves {@link MAX_SENDS_IN_FLIGHT} sends unanswered.
   */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#closed) throw new Error("Not connected");
    if (this.#inFlight >= MAX_SENDS_IN_FLIGHT) {
      await this.close().catch(() => {});
      throw new Error("Not connected"); // never sent
    }
    this.#inFlight++;
    try {
      await this.#inner.send(message, options);
    } catch (e) {
      if (httpStatusOf(e) === undefined) await this.close().catch(() => {});
      throw e;
    } finally {
      this.#inFlight--;
    }
  }

  /** Tell the inner transport the negotiated protocol version. */
  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  /**
   * Close (idempotent); fires `onclose` once. A Streamable HTTP session the server
   * assigned is ended first (DELETE), waited for at most {@link TERMINATE_GRACE_MS}, so
   * nothing this extension started outlives it on the server either.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const inner = this.#inner;
    try {
      if (inner instanceof StreamableHTTPClientTransport && inner.sessionId !== undefined) {
        // Closing the inner transport aborts the DELETE if the server does not answer.
        const timer = setTimeout(() => inner.close().catch(() => {}), TERMINATE_GRACE_MS);
        await inner.terminateSession().catch(() => {});
        clearTimeout(timer);
      }
      await inner.close();
    } finally {
      this.#ended();
    }
  }

  #ended(): void {
    this.#closed = true;
    const cb = this.onclose;
    this.onclose = undefined;
    cb?.();
  }
}
