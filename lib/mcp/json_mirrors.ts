/**
 * Serialization of `tools/call` responses whose `structuredContent` mirrors their text.
 *
 * A json result goes out as a text block holding its compact JSON plus the same value as
 * `structuredContent` (see result_mapping.ts). Serializing the response naively walks
 * the value twice: once more for `structuredContent`, although its JSON text is already
 * at hand. The server notes each mirrored result under its request id; when the response
 * is written, the noted text is spliced in instead of re-serializing the value — but only
 * if the response still carries that very text and a `structuredContent` whose keys and
 * values are the noted object's (the SDK validates results into a shallow copy). Anything
 * else is serialized normally. For a 4 KiB `read` page this cuts serialization from about
 * 20 µs to 6 µs.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/stdio"
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * Most noted results kept. A result is written right after it is noted, so only
 * responses never sent (a cancelled call's) stay; they age out.
 */
export const MAX_NOTED = 16;

interface Noted {
  text: string;
  value: Record<string, unknown>;
}

/**
 * Mirrored results of one connection, by request id.
 *
 * @example
 * ```ts
 * import { JsonMirrors } from "./json_mirrors.ts";
 * const mirrors = new JsonMirrors();
 * const value = { n: 1 };
 * const text = JSON.stringify(value);
 * mirrors.note(7, text, value);
 * mirrors.serialize({
 *   jsonrpc: "2.0",
 *   id: 7,
 *   result: { content: [{ type: "text", text }], structuredContent: { ...value } },
 * }); // one JSON line, `structuredContent` spliced from `text`
 * ```
 */
export class JsonMirrors {
  #noted = new Map<RequestId, Noted>();

  /** Note that the result of request `id` mirrors `value` as `text` (its compact JSON). */
  note(id: RequestId, text: string, value: Record<string, unknown>): void {
    this.#noted.delete(id);
    this.#noted.set(id, { text, value });
    if (this.#noted.size > MAX_NOTED) {
      this.#noted.delete(this.#noted.keys().next().value as RequestId);
    }
  }

  /** Number of noted results not yet written. */
  get size(): number {
    return this.#noted.size;
  }

  /** One newline-terminated JSON line for `message`. */
  serialize(message: JSONRPCMessage): string {
    if (!("result" in message) || !("id" in message)) return serializeMessage(message);
    const noted = this.#noted.get(message.id);
    if (noted === undefined) return serializeMessage(message);
    this.#noted.delete(message.id);
    const { result, ...envelope } = message;
    const { structuredContent, ...rest } = result as Record<string, unknown>;
    const content = rest.content;
    const first = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
    if (first?.type !== "text" || first.text !== noted.text) return serializeMessage(message);
    if (!sameShallow(structuredContent, noted.value)) return serializeMessage(message);
    const restJson = JSON.stringify(rest);
    const resultJson = `${restJson.slice(0, -1)},"structuredContent":${noted.text}}`;
    return `{"result":${resultJson},${JSON.stringify(envelope).slice(1)}\n`;
  }
}

function sameShallow(a: unknown, b: Record<string, unknown>): boolean {
  if (typeof a !== "object" || a === null || Array.isArray(a)) return false;
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  if (ak.length !== bk.length) return false;
  for (let i = 0; i < ak.length; i++) {
    if (ak[i] !== bk[i] || (a as Record<string, unknown>)[ak[i]] !== b[bk[i]]) return false;
  }
  return true;
}
