/**
 * A remote extension's answers, held like a stdio server's lines (json_rpc_lines.ts)
 * before the SDK parses them: parsing rounds a number longer than a double holds, so a
 * protected value inside one comes out as most of itself, past any redaction. A JSON body
 * (one message or a batch) holding a value outside its strings is replaced by its
 * messages held; an event stream is checked event by event (the `data` lines of one
 * event form one message), and a held event is sent as its message held. A body taken
 * whole is also checked as the event stream a client may read it as, whatever its type
 * says — the SDK reads a Streamable HTTP GET stream as events without looking at its
 * type, the legacy transport takes any type that starts `text/event-stream` — since as
 * JSON a stray quote (in an event's comment) shifts which bytes count as strings. Bodies are
 * already bounded (bounded_fetch.ts: a whole JSON body, one event), so what is kept here
 * is too; with no protected value registered the body passes through untouched.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { concatBytes } from "../bytes/concat_bytes.ts";
import { heldBeforeParse } from "../redact/json_source.ts";
import type { Protector } from "../redact/types.ts";
import { heldMessage } from "./json_rpc_lines.ts";

const LF = 10;
const CR = 13;

/** `text` (JSON-RPC JSON) when no value sits outside its strings, else its messages held. */
function heldJson(p: Protector, text: string): string | undefined {
  if (!heldBeforeParse(text, p)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "null"; // not JSON: the SDK's parse fails on this as on the original
  }
  const held = (m: unknown) =>
    typeof m === "object" && m !== null ? heldMessage(m as JSONRPCMessage) : null;
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(held) : held(parsed));
}

/** One event's lines (without their line ends), held when its data holds a value. */
function heldEvent(p: Protector, lines: string[]): string | undefined {
  const data: string[] = [];
  const other: string[] = [];
  for (const l of lines) {
    if (l === "data" || l.startsWith("data:")) {
      data.push(l.startsWith("data: ") ? l.slice(6) : l.slice(5));
    } else other.push(l);
  }
  if (data.length === 0) return undefined;
  const json = heldJson(p, data.join("\n"));
  if (json === undefined) return undefined;
  return [...other, `data: ${json}`].join("\n") + "\n\n";
}

/** Splits an event stream's bytes into events (a blank line ends one), kept whole. */
class EventSplitter {
  #event: Uint8Array[] = [];
  #line = 0; // bytes in the current line
  #afterCR = false;

  /**
   * The events `chunk` completes, each as its raw bytes, in order; the rest is kept. The
   * LF of a CRLF that ended an event starts the next one's bytes: bytes keep their order.
   */
  push(chunk: Uint8Array): Uint8Array[] {
    const done: Uint8Array[] = [];
    let from = 0;
    for (let i = 0; i < chunk.byteLength; i++) {
      const b = chunk[i];
      if (b === LF && this.#afterCR) {
        this.#afterCR = false;
        continue;
      }
      this.#afterCR = b === CR;
      if (b !== LF && b !== CR) {
        this.#line++;
        continue;
      }
      if (this.#line > 0) {
        this.#line = 0;
        continue;
      }
      this.#event.push(chunk.subarray(from, i + 1));
      done.push(concatBytes(this.#event, SHARE));
      this.#event = [];
      from = i + 1;
    }
    if (from < chunk.byteLength) this.#event.push(chunk.subarray(from));
    return done;
  }

  /** What is left (an unfinished event). */
  rest(): Uint8Array {
    const r = concatBytes(this.#event, SHARE);
    this.#event = [];
    return r;
  }
}

/** An event or body in one chunk is passed on as it is, as before (a stream's chunks are ours). */
const SHARE = { shareSingle: true };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** An event's bytes, or the held event that replaces them. */
function eventOut(p: Protector, bytes: Uint8Array): Uint8Array {
  const text = decoder.decode(bytes);
  const held = heldEvent(p, text.split(/\r\n|\r|\n/).filter((l) => l !== ""));
  return held === undefined ? bytes : encoder.encode(held);
}

/**
 * A whole body held whichever way its client reads it: as JSON (one message or a batch),
 * or as an event stream (each event held as {@link eventOut} holds it). Valid JSON has no
 * `data` line, so a body the events reading holds is no JSON a client could read.
 */
function heldWhole(p: Protector, bytes: Uint8Array): Uint8Array {
  const text = decoder.decode(bytes);
  const json = heldJson(p, text);
  if (json !== undefined) return encoder.encode(json);
  if (!text.includes("data")) return bytes;
  const split = new EventSplitter();
  const events = [...split.push(bytes), split.rest()];
  const out = events.map((e) => e.byteLength === 0 ? e : eventOut(p, e));
  return out.some((o, i) => o !== events[i]) ? concatBytes(out, SHARE) : bytes;
}

/**
 * `body` with every message holding a protected value outside its strings held (see the
 * module doc); `events` for a `text/event-stream`.
 *
 * @example
 * ```ts
 * import { heldBody } from "./held_body.ts";
 * import { Redactor } from "../redact/redactor.ts";
 * const red = new Redactor();
 * red.add("98765432109876543210");
 * const body = new Response('{"jsonrpc":"2.0","id":1,"result":{"n":198765432109876543210}}').body!;
 * const text = await new Response(heldBody(body, false, red)).text();
 * text.includes("withheld"); // true
 * ```
 */
export function heldBody(
  body: ReadableStream<Uint8Array>,
  events: boolean,
  protect: Protector,
): ReadableStream<Uint8Array> {
  if (!events) {
    const parts: Uint8Array[] = [];
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk) {
          parts.push(chunk);
        },
        flush(controller) {
          controller.enqueue(heldWhole(protect, concatBytes(parts, SHARE)));
        },
      }),
    );
  }
  const split = new EventSplitter();
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const e of split.push(chunk)) controller.enqueue(eventOut(protect, e));
      },
      flush(controller) {
        const rest = split.rest();
        if (rest.byteLength > 0) controller.enqueue(eventOut(protect, rest));
      },
    }),
  );
}
