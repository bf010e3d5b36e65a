/**
 * The reply backlog of one HTTP MCP session: the bytes its live responses hold that the
 * client has not taken. The SDK's transport answers through a web `ReadableStream` that
 * @hono/node-server pipes into the Node `res`, pausing while `res.write` reports
 * backpressure — so unsent replies would pile up in the stream's queue, out of sight.
 * Here `res.write` never reports backpressure: every byte lands in `res`, where
 * `writableLength` counts it, and `resource_gate.ts` bounds what reads add to it. A
 * response holding more than {@link RESPONSE_BACKLOG_BYTES} is destroyed (its connection
 * closed): no client keeps that much of the server's memory.
 *
 * @module
 */

import type { ServerResponse } from "node:http";

/**
 * Unsent bytes one response may hold: well above the largest single reply (a 64 MiB
 * artifact is ~86 MiB as base64 JSON) plus the 32 MiB a read is refused above.
 *
 * @example
 * ```ts
 * import { RESPONSE_BACKLOG_BYTES } from "./http_backlog.ts";
 * RESPONSE_BACKLOG_BYTES > 0; // true
 * ```
 */
export const RESPONSE_BACKLOG_BYTES = 192 * 1024 * 1024;

/**
 * The live responses of one session and their unsent bytes.
 *
 * @example
 * ```ts
 * import { ReplyBacklog } from "./http_backlog.ts";
 * const backlog = new ReplyBacklog();
 * backlog.bytes(); // 0
 * ```
 */
export class ReplyBacklog {
  #live = new Set<ServerResponse>();
  #limit: number;

  /** Destroy a response holding more than `limit` unsent bytes. */
  constructor(limit = RESPONSE_BACKLOG_BYTES) {
    this.#limit = limit;
  }

  /** Count `res` until it closes, and let every write land in it. */
  add(res: ServerResponse): void {
    this.#live.add(res);
    res.once("close", () => this.#live.delete(res));
    const write = res.write;
    const limit = this.#limit;
    res.write = function (this: ServerResponse, ...args: unknown[]) {
      (write as (...a: unknown[]) => boolean).apply(this, args);
      if (this.writableLength > limit) this.destroy();
      return true; // the bytes are counted here, not queued out of sight
    } as typeof res.write;
  }

  /** Unsent bytes of the live responses. */
  bytes(): number {
    let sum = 0;
    for (const res of this.#live) sum += res.writableLength;
    return sum;
  }
}
