/**
 * `section` finds ATX headings in one pass per line. Its former regex backtracked
 * quadratically over a run of blanks (a line of a megabyte of spaces in a document —
 * which a write tool can produce — held the event loop for minutes); the scanner must
 * agree with that regex on every line.
 */

import assert from "node:assert/strict";
import { atxHeading, findSection } from "../../lib/builtins/section.ts";

const FORMER = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

function former(line: string): { level: number; text: string } | null {
  const h = FORMER.exec(line);
  return h ? { level: h[1].length, text: (h[2] ?? "").trim() } : null;
}

Deno.test("section: the heading scanner agrees with the former regex on every short line", () => {
  const alphabet = [" ", "\t", "#", "a", "b", "\r", "\u00a0", "\u2028"];
  let checked = 0;
  const walk = (prefix: string, left: number) => {
    assert.deepEqual(atxHeading(prefix), former(prefix), JSON.stringify(prefix));
    checked++;
    if (left === 0) return;
    for (const c of alphabet) walk(prefix + c, left - 1);
  };
  walk("", 7); // every line of up to 7 characters over the alphabet: 2.4 million
  assert.ok(checked > 2_000_000);
  for (const line of ["# A", "##  Usage  ##", "# ###", "#######", " ## x #", "#\tx\t#\t"]) {
    assert.deepEqual(atxHeading(line), former(line), line);
  }
});

Deno.test("section: a heading-like line of a million blanks is scanned in one pass", () => {
  const wide = `# a${" ".repeat(1_000_000)}x`;
  assert.deepEqual(atxHeading(wide), { level: 1, text: `a${" ".repeat(1_000_000)}x` });
  const doc = `# Top\n${wide}\n## Usage\nrun it\n# End\n`;
  assert.equal(findSection(doc, "Usage"), "## Usage\nrun it\n");
});
