/**
 * The server side of MCP's stdio transport: newline-delimited JSON-RPC over a readable and
 * a writable stream, framed by line_framing.ts (message_buffer.ts: the SDK's `ReadBuffer`
 * behaviour, with plain requests checked by hand, plain_request.ts).
 * What differs from the SDK's `StdioServerTransport` is the write: each message goes out
 * as bytes (frame_writer.ts: encoded into a reused buffer), since handing the stream a
 * string made Deno's socket re-encode it on a slow path — for a 12 KB `read` result about
 * a tenth of the server's time per call — and the serializer can be the server's
 * (json_mirrors.ts).
 *
 * Incoming data is bounded: unread input may be at most `maxBufferBytes` (default the
 * SDK's 10 MiB); more is an error and ends the connection.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import type { Readable, Writable } from "node:stream";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { feedLines, serializeMessage, stopReading } from "../extensions/line_framing.ts";
import { FrameWriter } from "./frame_writer.ts";
import { MessageLineBuffer } from "./message_buffer.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Options of {@link StdioServerStreamTransport}. */
export interface StdioTransportOptions {
  /** Most unread input buffered, bytes. Default the SDK's 10 MiB. */
  maxBufferBytes?: number;
  /** One newline-terminated JSON line per message. Default the SDK's `serializeMessage`. */
  serialize?: (message: JSONRPCMessage) => string;
}

/**
 * MCP server transport over two streams.
 *
 * @example
 * ```ts
 * import process from "node:process";
 * import { StdioServerStreamTransport } from "./stdio_transport.ts";
 * const transport = new StdioServerStreamTransport(process.stdin, process.stdout);
 * // await server.connect(transport);
 * ```
 */
export class StdioServerStreamTransport implements Transport {
  /** Set by the protocol layer. */
  onclose?: () => void;
  /** Set by the protocol layer. */
  onerror?: (error: Error) => void;
  /** Set by the protocol layer. */
  onmessage?: (message: JSONRPCMessage) => void;
  #input: Readable;
  #frames: FrameWriter;
  #buffer: MessageLineBuffer;
  #serialize?: (message: JSONRPCMessage) => string;
  #started = false;
  #closed = false;

  /** Use `input` and `output`; neither is closed by the transport. */
  constructor(input: Readable, output: Writable, opts: StdioTransportOptions = {}) {
    this.#input = input;
    this.#frames = new FrameWriter(output);
    this.#buffer = new MessageLineBuffer({ maxBufferSize: opts.maxBufferBytes });
    this.#serialize = opts.serialize;
  }

  #ondata = (chunk: Buffer) => {
    if (!feedLines(this.#buffer, chunk, this)) this.close().catch(() => {});
  };

  #onerror = (e: Error) => this.onerror?.(e);

  /** Start reading. Called by `server.connect()`. */
  start(): Promise<void> {
    if (this.#started) throw new Error("the stdio transport was already started");
    this.#started = true;
    this.#input.on("data", this.#ondata);
    this.#input.on("error", this.#onerror);
    return Promise.resolve();
  }

  /** Send one message; resolves once the stream took it (or drained). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.#frames.write((this.#serialize ?? serializeMessage)(message));
  }

  /** Stop reading and report the close. Idempotent. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    stopReading(this.#input, this.#ondata, this.#onerror);
    this.#buffer.clear();
    this.onclose?.();
    return Promise.resolve();
  }
}
