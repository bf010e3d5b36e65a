/**
 * A grep search that pauses (its deadline expired) and goes on from its cursor finds
 * exactly what an uninterrupted search finds, on every search path.
 */

import assert from "node:assert/strict";
import { RE2JS } from "re2js";
import { compileGrepPattern } from "../../lib/grep/regex.ts";
import { createByteScanner } from "../../lib/grep/byte_scan.ts";
import {
  type BufferOutcome,
  prepareScanner,
  searchBuffer,
  startCursor,
} from "../../lib/grep/search.ts";

/** The 1-based numbers of the lines re2js itself matches. */
function truth(pattern: string, lines: string[]): number[] {
  const re = RE2JS.compile(pattern);
  return lines.flatMap((l, i) => (re.test(l) ? [i + 1] : []));
}

Deno.test("a search paused at every stride finds what an uninterrupted one does", () => {
  const lines: string[] = [];
  for (let i = 0; i < 30_000; i++) {
    lines.push(i % 997 === 0 ? `hello world ${i}` : i % 3 === 0 ? `AB${i % 10} line` : `x ${i}`);
  }
  const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
  const scanner = createByteScanner();
  // Literal (pure and regex-checked), V8-prefilter and re2js-window paths.
  for (const p of ["hello world", "o{2}|world \\d+", "[A-Z]{2}\\d", "[A-Z]+\\d+ l", "^x 2\\d*$"]) {
    const pattern = compileGrepPattern(p);
    const run = (pause: boolean) => {
      prepareScanner(scanner, pattern);
      scanner.reserve(bytes.length).set(bytes);
      const found: string[] = [];
      const sink = (line: number, text: string) => (found.push(`${line}:${text}`), true);
      const cursor = startCursor();
      const deadline = pause ? { expired: () => true } : undefined;
      let pauses = 0;
      let outcome: BufferOutcome = "paused";
      while (outcome === "paused") {
        outcome = searchBuffer(scanner, bytes.length, pattern, sink, cursor, deadline);
        if (outcome === "paused") pauses++;
      }
      return { found, pauses, outcome };
    };
    const straight = run(false);
    const paused = run(true);
    assert.equal(straight.pauses, 0);
    assert.equal(paused.outcome, "searched");
    assert.deepEqual(paused.found, straight.found, p);
    assert.deepEqual(straight.found.map((f) => Number(f.split(":")[0])), truth(p, lines), p);
    if (p !== "hello world") assert.ok(paused.pauses > 1, p); // a literal search skips ahead
  }
});
