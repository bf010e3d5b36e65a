/**
 * `serve`'s stdio transport, which starts before the MCP SDK is loaded. Loading the SDK
 * builds its zod schemas, about a fifth of `serve`'s start-up; a client's first requests
 * (`initialize`, then `tools/list`) need none of it. So the front reads stdin at once and:
 *
 * - answers a plain `initialize` and plain `tools/list` requests itself, with the answers
 *   the SDK `Server` would send, byte for byte (early_answers.ts; tests compare them), and
 *   takes `notifications/initialized`;
 * - holds every other line, in order, and asks for the SDK (`needServer`); after an early
 *   listing it asks too, so the SDK is loading while the client reads the list;
 * - once the SDK server is connected ({@linkcode StdioFront.handOver}), replays to it
 *   what it took early that changes the server's state (the `initialize` request, whose
 *   answer the front then drops, and the notification), then the held lines; from then
 *   on it is a plain transport (as stdio_transport.ts: lines parsed by the SDK's rules,
 *   answers written as bytes), except that a refused line holding a request is answered
 *   and a batch is taken message by message (stray_lines.ts).
 *
 * Incoming data has the same bound as before the change (line_buffer.ts): more unread
 * input than `maxBufferBytes` ends the connection. Lines the front holds or keeps for a
 * replay count against the same bound until the hand-over, so a client that never makes
 * the SDK load (say, `notifications/initialized` over and over) cannot grow them either.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { serializeMessage, stopReading } from "../extensions/line_framing.ts";
import { earlyMessage } from "./early_answers.ts";
import { FrameWriter } from "./frame_writer.ts";
import { LineBuffer, STDIO_MAX_BUFFER_BYTES } from "./line_buffer.ts";
import { strayLine } from "./stray_lines.ts";

/** What the front answers before the SDK is loaded. */
export interface EarlyAnswers {
  /** The `initialize` result for the requested protocol version. */
  initialize(protocolVersion: string): Record<string, unknown>;
  /** The `tools/list` result. */
  list(): Promise<Record<string, unknown>>;
}

/** Options of {@linkcode StdioFront}. */
export interface StdioFrontOptions {
  /** Early answers; without them every message waits for the SDK. */
  early?: EarlyAnswers;
  /** Asks for the SDK server (called more than once; the caller loads it once). */
  needServer: () => void;
  /** The connection must end (the input bound was exceeded) before the SDK took over. */
  onEarlyClose?: () => void;
  /** Most unread input buffered, bytes. Default the SDK's 10 MiB. */
  maxBufferBytes?: number;
  /**
   * Where to log (one line, no values): an early answer that the SDK's differed from (a
   * bug), and the first line dropped unanswered ({@link DROPPED_LINE}).
   */
  log?: (line: string) => void;
}

/**
 * Logged once per connection for the first non-blank line that gets no answer (not JSON,
 * or JSON without a request's id): someone driving `serve` by hand, or a client framing
 * messages with `Content-Length` headers, otherwise sees nothing at all.
 */
export const DROPPED_LINE = "ignored a line on stdin that is not an MCP request " +
  "(stdio takes one JSON-RPC message per line, without Content-Length headers); " +
  "later ones are ignored without a word";

/** Parses one line by the SDK's rules (plain_request.ts `parseMessageLine`). */
export type LineParser = (line: string) => JSONRPCMessage;

/**
 * The stdio transport of `serve` (see the module documentation).
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { StdioFront } from "./stdio_front.ts";
 * const front = new StdioFront(process.stdin, process.stdout, { needServer: () => {} });
 * // front.begin(); ... await server.connect(front); await front.handOver(parse, serialize);
 * ```
 */
export class StdioFront implements Transport {
  /** Set by the protocol layer. */
  onclose?: () => void;
  /** Set by the protocol layer. */
  onerror?: (error: Error) => void;
  /** Set by the protocol layer. */
  onmessage?: (message: JSONRPCMessage) => void;
  #input: Readable;
  #frames: FrameWriter;
  #lines: LineBuffer;
  #opts: StdioFrontOptions;
  #early?: EarlyAnswers;
  #parse?: LineParser;
  #serialize: (message: JSONRPCMessage) => string = serializeMessage;
  /** Lines waiting for the SDK, in order. */
  #held: string[] = [];
  /** Lines answered or taken early that the SDK must see too, with the answer's id. */
  #replay: { line: string; id?: string | number; bytes?: string }[] = [];
  #swallow?: { id: string | number; bytes: string; done: () => void };
  /** UTF-16 code units held in `#held` and `#replay` (bounded by `maxBufferBytes`). */
  #pending = 0;
  #max: number;
  #initialized = false;
  #reading = false;
  #closed = false;
  #reportedDrop = false;

  /** Read `input`, write `output`; neither is closed by the front. */
  constructor(input: Readable, output: Writable, opts: StdioFrontOptions) {
    this.#input = input;
    this.#frames = new FrameWriter(output);
    this.#opts = opts;
    this.#early = opts.early;
    this.#lines = new LineBuffer({ maxBufferSize: opts.maxBufferBytes });
    this.#max = opts.maxBufferBytes ?? STDIO_MAX_BUFFER_BYTES;
  }

  /** Start reading (before the SDK is there). */
  begin(): void {
    if (this.#reading) return;
    this.#reading = true;
    this.#input.on("data", this.#ondata);
    this.#input.on("error", this.#onerror);
  }

  /** Called by the SDK's `connect()`: the front is already reading. */
  start(): Promise<void> {
    this.begin();
    return Promise.resolve();
  }

  /**
   * The SDK server is connected: replay what was taken early (dropping the SDK's answer
   * to an `initialize` answered early), then the held lines; parse every later line with
   * `parse` and write with `serialize`.
   */
  async handOver(
    parse: LineParser,
    serialize: (message: JSONRPCMessage) => string,
  ): Promise<void> {
    this.#early = undefined; // from now on every line goes to the SDK, in order
    this.#serialize = serialize;
    for (const { line, id, bytes } of this.#replay.splice(0)) {
      if (id === undefined || bytes === undefined) {
        this.#deliver(parse, line);
        continue;
      }
      if (this.#closed) return;
      const dropped = new Promise<void>((done) => this.#swallow = { id, bytes, done });
      this.#deliver(parse, line);
      await dropped;
    }
    if (this.#closed) return;
    this.#parse = parse;
    this.#pending = 0;
    for (const line of this.#held.splice(0)) this.#deliver(parse, line);
  }

  #ondata = (chunk: Buffer) => {
    try {
      this.#lines.append(chunk);
    } catch (e) {
      this.onerror?.(e as Error);
      this.close().catch(() => {});
      return;
    }
    for (let line = this.#lines.readLine(); line !== null; line = this.#lines.readLine()) {
      this.#line(line);
      if (this.#closed) return;
    }
  };

  #onerror = (e: Error) => this.onerror?.(e);

  #line(line: string): void {
    if (this.#parse !== undefined) return this.#deliver(this.#parse, line);
    this.#pending += line.length;
    if (this.#pending > this.#max) {
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${this.#max} bytes`));
      this.close().catch(() => {});
      return;
    }
    if (this.#early !== undefined && this.#held.length === 0 && this.#answer(line)) return;
    this.#held.push(line);
    this.#opts.needServer();
  }

  #deliver(parse: LineParser, line: string, inBatch = false): void {
    let message: JSONRPCMessage;
    try {
      message = parse(line);
    } catch (e) {
      this.onerror?.(e as Error); // a bad line is reported; a request with an id answered
      const stray = strayLine(line, inBatch);
      if (stray.kind === "answer") void this.#write(stray.message).catch(() => {});
      if (stray.kind === "batch") { for (const l of stray.lines) this.#deliver(parse, l, true); }
      if (stray.kind === "drop" && !this.#reportedDrop && line.trim() !== "") {
        this.#reportedDrop = true;
        this.#opts.log?.(DROPPED_LINE);
      }
      return;
    }
    this.onmessage?.(message);
  }

  /** Answer or take `line` early; false when it must wait for the SDK. */
  #answer(line: string): boolean {
    const early = this.#early!;
    const m = earlyMessage(line);
    if (m === undefined) return false;
    if (m.kind === "initialized") {
      this.#replay.push({ line });
      return true;
    }
    if (m.kind === "initialize") {
      if (this.#initialized) return false; // a second one: the SDK's to answer
      this.#initialized = true;
      const response = { result: early.initialize(m.protocolVersion), jsonrpc: "2.0", id: m.id };
      const bytes = serializeMessage(response as JSONRPCMessage);
      this.#replay.push({ line, id: m.id, bytes });
      void this.#write(response as JSONRPCMessage);
      return true;
    }
    const id = m.id;
    early.list().then(
      (result) => this.#write({ result, jsonrpc: "2.0", id } as JSONRPCMessage),
      (e) => this.#write(errorResponse(id, e)),
    ).catch(() => {}).finally(() => setImmediate(this.#opts.needServer));
    return true;
  }

  /** Send one message; resolves once the stream took it (or drained). */
  send(message: JSONRPCMessage): Promise<void> {
    const swallow = this.#swallow;
    if (swallow !== undefined && !("method" in message) && message.id === swallow.id) {
      this.#swallow = undefined; // the replayed initialize's answer: sent already
      if (this.#serialize(message) !== swallow.bytes) {
        this.#opts.log?.("the SDK answered initialize differently from the early answer");
      }
      swallow.done();
      return Promise.resolve();
    }
    return this.#write(message);
  }

  /** Write one message (the front's own early answers come here directly: an early
   * `tools/list` answer is never taken for the replayed `initialize`'s, whatever its id). */
  #write(message: JSONRPCMessage): Promise<void> {
    return this.#frames.write(this.#serialize(message));
  }

  /** Stop reading and report the close. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    stopReading(this.#input, this.#ondata, this.#onerror);
    this.#lines.clear();
    this.#held = [];
    const swallow = this.#swallow; // a replay waiting for an answer the close aborts
    this.#swallow = undefined;
    swallow?.done();
    if (this.onclose) this.onclose();
    else this.#opts.onEarlyClose?.();
    return Promise.resolve();
  }
}

/** The SDK protocol layer's error answer to a request whose handler threw `e`. */
function errorResponse(id: string | number, e: unknown): JSONRPCMessage {
  const err = (typeof e === "object" && e !== null ? e : {}) as Record<string, unknown>;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: Number.isSafeInteger(err.code) ? err.code as number : -32603,
      message: (err.message as string | undefined) ?? "Internal error",
      ...(err.data !== undefined && { data: err.data }),
    },
  } as JSONRPCMessage;
}
