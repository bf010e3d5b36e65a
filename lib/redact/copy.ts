/**
 * A byte stream copied somewhere a person (or an agent driving the CLI) reads — `tools
 * call --stderr`'s terminal — with protected values redacted as they pass: decoded as
 * UTF-8 across chunks, redacted by a {@link StreamingRedactor} (a value split across
 * chunks, or across two processes' interleaved output, goes whole), encoded again. What
 * is held back (one longest form) is released by `flush`, when a call ends.
 *
 * @module
 */

import { StreamingRedactor } from "./stream.ts";
import type { Protector } from "./types.ts";

/** A redacting copy of a byte stream. */
export interface RedactedCopy {
  /** Copy one chunk (what cannot hold the start of a value yet is released at once). */
  write(chunk: Uint8Array): void;
  /** Release what is held back (the end of the stream, or a pause in it). */
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
      if (stream !== undefined) out(stream.push(decoder.decode()) + stream.end());
    },
  };
}
