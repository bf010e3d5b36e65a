/**
 * scripts/ascii_bundle.ts: the single executable's bundle is made ASCII-only without
 * changing any value the code computes — strings, templates (also `String.raw`), regular
 * expressions, identifiers, comments and whitespace — and a tagged template it cannot
 * rewrite faithfully stops the build.
 *
 * @module
 */

import assert from "node:assert/strict";
import { asciiBundle } from "../../scripts/ascii_bundle.ts";

// deno-lint-ignore no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** What a snippet (a function body ending in `return …`) returns. */
function run(body: string): unknown {
  return new Function(body)();
}

const SNIPPETS: string[] = [
  'return "a\u2014b \u2026 \u2264 \u00e9";',
  "return 'single \u2192 quoted';",
  "return `untagged \u2014 ${1 + 1} \u2026 ${'x'} end\u2192`;",
  "return String.raw`raw \\n \u2014 ${2} kept\u2026`;",
  "const a = 'x'; return String.raw`${a}\u2014`;",
  "return `no substitution \u2014`;",
  "return [/\u2014+/.test('\u2014\u2014'), /[\u2190-\u2193]/u.test('\u2192'), /\u00e9/i.test('\u00c9')];",
  "return ['\u{1F600}', /\u{1F600}/u.test('\u{1F600}'), /^.$/u.test('\u{1F600}')];",
  "const caf\u00e9 = 3; return caf\u00e9 * 2;",
  "class K { #\u00e9t\u00e9 = 4; get v() { return this.#\u00e9t\u00e9; } } return new K().v;",
  "// a comment \u2014 with \u2192 arrows\n/* and a block \u2026 */ return 1;",
  "/** a doc \u2264 comment */ return 'doc';",
  "return\u00a0'nbsp as whitespace';",
  "const x = 1\u2028return x + 1;",
  "// a line comment ended by a line separator\u2028return 'after';",
  "return { '\u00fcber': 1, \u00fcber2: 2 };",
  "return JSON.stringify({ k: '\u2014' });",
];

Deno.test("every snippet computes the same value after the rewrite, from ASCII source", () => {
  for (const src of SNIPPETS) {
    const out = asciiBundle(src);
    assert.match(out, ASCII, src);
    assert.deepEqual(run(out), run(src), src);
  }
});

Deno.test("ASCII source is returned unchanged", () => {
  const src = 'const s = "plain"; // comment\nmodule.exports = s;';
  assert.equal(asciiBundle(src), src);
});

Deno.test("comments keep their text readable as escapes", () => {
  assert.equal(asciiBundle("// a \u2014 b\nx;"), "// a \\u2014 b\nx;");
});

Deno.test("a template with another tag stops the build, naming the line", () => {
  const src = "const tag = (s) => s.raw[0];\n\nmodule.exports = tag`x \u2014 y`;";
  assert.throws(
    () => asciiBundle(src),
    /bundle line 3: a non-ASCII character in a tagged template/,
  );
});
