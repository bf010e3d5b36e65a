/**
 * A byte stream copied somewhere a person (or an agent driving the CLI) reads — `tools
 * call --stderr`'s terminal — with protected values redacted as they pass: decoded as
 * UTF-8 across chunks, redacted by a {@link StreamingRedactor} (a value split across
 * chunks, or across two processes' interleaved output, goes whole), encoded again. What
 * is held back (one longest form) is released by `flush`, when a call ends — all but a
 * tail that begins a value without completing it: output still to come (another call's,
 * a harness's between calls) may complete it, so it is never printed on its own.
 *
 * @module
 */

import { StreamingRedactor } from "./stream.ts";
import type { Protector } from "./types.ts";

/** A redacting copy of a byte stream. */
export interface RedactedCopy {
  /** Copy one chunk (what cannot hold the start of a value yet is released at once). */
  write(chunk: Uint8Array): void;
  /** Release what is held back but a tail that may still become a value (a pause). */
  flush(): void;
}

/**
 * `sink` behind the redaction of `protect`'s values.
 *
 * @example
 * ```ts
 * import { Redactor } from "./redactor.ts";
 * import { redactedCopy } from "./copy.ts";
 * const r = new Redactor();
 * r.add("tok-123456");
 * const seen: string[] = [];
 * const copy = redactedCopy((b) => seen.push(new TextDecoder().decode(b)), r);
 * copy.write(new TextEncoder().encode("a tok-12"));
 * copy.write(new TextEncoder().encode("3456 b"));
 * copy.flush();
 * seen.join(""); // "a [protected] b"
 * copy.write(new TextEncoder().encode("c tok-1"));
 * copy.flush(); // "c ": "tok-1" may still become the value, so it is held
 * ```
 */
export function redactedCopy(
  sink: (chunk: Uint8Array) => void,
  protect: Protector,
): RedactedCopy {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  // Made once a value is registered (a plugin may add one after the registry opened);
  // until then chunks pass as they are.
  let stream: StreamingRedactor | undefined;
  const out = (text: string) => {
    if (text !== "") sink(encoder.encode(text));
  };
  return {
    write(chunk) {
      if (stream === undefined && !protect.active) return sink(chunk);
      stream ??= new StreamingRedactor(protect);
      out(stream.push(decoder.decode(chunk, { stream: true })));
    },
    flush() {
      // The decoder is not ended: a character split by the pause completes with what follows.
      if (stream !== undefined) out(stream.pause());
    },
  };
}
