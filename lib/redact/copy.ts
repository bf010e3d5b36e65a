/**
 * A byte stream copied somewhere a person (or an agent driving the CLI) reads — `tools
 * call --stderr`'s terminal — with protected values redacted as they pass: decoded as
 * UTF-8 across chunks, cleaned for the terminal, redacted by a {@link StreamingRedactor}
 * (a value split across chunks, or across two processes' interleaved output, goes whole),
 * encoded again. What is held back (one longest form) is released by `flush`, when a call
 * ends — all but a tail that begins a value without completing it: output still to come
 * (another call's, a harness's between calls) may complete it, so it is never printed on
 * its own.
 *
 * Cleaned before it is redacted, so what is searched is what the terminal shows: escape
 * sequences and control characters (but `\n` and `\t`) are removed as plain output's are
 * — a `\x1b[0m`, a backspace or a carriage return inside a value, which a terminal draws
 * as the value, would otherwise keep it from being found, and removing them after the
 * search would form it again — and so are format characters (`\p{Cf}`: zero-width spaces
 * and joiners, bidirectional controls), which a terminal draws as nothing.
 *
 * @module
 */

import { withoutFormat } from "../text/text_clean.ts";
import { StreamingCleaner } from "../text/clean_stream.ts";
import { StreamingRedactor } from "./stream.ts";
import type { Protector } from "./types.ts";

/** A redacting copy of a byte stream. */
export interface RedactedCopy {
  /** Copy one chunk (what cannot hold the start of a value yet is released at once). */
  write(chunk: Uint8Array): void;
  /**
   * Release what is held back but a tail that may still become a value (a pause); with
   * `ended` (the copy closes: nothing follows), a tail that only a line break ends too.
   */
  flush(ended?: boolean): void;
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
  const encoder = new TextEncoder();
  // Made once a value is registered (a plugin may add one after the registry opened);
  // until then chunks pass as they are.
  let stream: StreamingRedactor | undefined;
  let cleaner: StreamingCleaner | undefined;
  const out = (text: string) => {
    if (text !== "") sink(encoder.encode(text));
  };
  return {
    write(chunk) {
      if (stream === undefined && !protect.active) return sink(chunk);
      stream ??= new StreamingRedactor(protect);
      cleaner ??= new StreamingCleaner();
      out(stream.push(withoutFormat(cleaner.push(chunk))));
    },
    flush(ended = false) {
      // Neither is ended: a character or an escape sequence split by the pause, or a value
      // begun before it, completes with what follows.
      if (stream !== undefined && cleaner !== undefined) {
        out(stream.push(withoutFormat(cleaner.pause())) + stream.pause(ended));
      }
    },
  };
}
