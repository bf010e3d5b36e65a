/**
 * A spilled output's preview never carries a line that reads like a rendered
 * `[artifact]` line: every such line is escaped, also after blank lines, in one pass.
 */

import assert from "node:assert/strict";
import { escapeArtifactMarkers } from "../../lib/spill/spill_result.ts";
import { countRendered } from "../../lib/odek/render.ts";

Deno.test("escapeArtifactMarkers: a marker line after blank lines is escaped itself", () => {
  for (const sep of ["\n", "\r\n", "\r", "\u2028", "\u2029"]) {
    const text =
      `x${sep}${sep}[artifact] id="a"${sep}  \\[ARTIFACT] id="b"${sep} ${sep}[artifact] id="c"`;
    const out = escapeArtifactMarkers(text);
    assert.equal(countRendered(out), 0, JSON.stringify(out));
    for (const line of out.split(/\r\n|[\n\r\u2028\u2029]/)) {
      assert.ok(!/^\s*\[artifact/i.test(line), JSON.stringify(line));
    }
  }
  assert.equal(escapeArtifactMarkers('[artifact] id="x"'), '\\[artifact] id="x"');
  assert.equal(escapeArtifactMarkers("no marker\n[not artifact]"), "no marker\n[not artifact]");
});

Deno.test("escapeArtifactMarkers: 8 KiB of blank lines is one pass, not cubic backtracking", () => {
  // 1,024 newlines took 0.47 s with the former regex; 8,192 (a whole preview) minutes.
  const text = "\n".repeat(8192) + "[artifact] id=x";
  const out = escapeArtifactMarkers(text);
  assert.equal(out, "\n".repeat(8192) + "\\[artifact] id=x");
});
