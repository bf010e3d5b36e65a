/**
 * The byte pre-check of json-protocol stdout: the 8 MiB result bound (seed: the normalized
 * result is bounded at 8 MiB) and the 1,024-level nesting bound apply before any parsing,
 * at the boundary, one below and one above; whitespace and string contents never count
 * as structure.
 */
import assert from "node:assert/strict";
import { MAX_JSON_DEPTH, precheckJson } from "../../lib/protocols/json_precheck.ts";
import { LIMITS } from "../../lib/results/types.ts";
import { callJson } from "./helpers.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const MiB8 = LIMITS.maxResultBytes;

Deno.test("precheck: compact size at, below and above the bound; whitespace is free", () => {
  const doc = (n: number) => enc(`"${"a".repeat(n - 2)}"`);
  assert.equal(precheckJson(doc(100), 100), "ok");
  assert.equal(precheckJson(doc(99), 100), "ok");
  assert.equal(precheckJson(doc(101), 100), "too-large");
  // Spaces, tabs, CR and LF outside strings are insignificant; inside they count.
  assert.equal(precheckJson(enc(`[ 1 ,\t2\r\n, 3 ]${" ".repeat(500)}`), 7), "ok");
  assert.equal(precheckJson(enc(`["${" ".repeat(10)}"]`), 13), "too-large");
});

Deno.test("precheck: depth 1024 passes, 1025 does not; brackets in strings never count", () => {
  const nest = (d: number) => enc("[".repeat(d) + "]".repeat(d));
  assert.equal(MAX_JSON_DEPTH, 1024);
  assert.equal(precheckJson(nest(1023), MiB8), "ok");
  assert.equal(precheckJson(nest(1024), MiB8), "ok");
  assert.equal(precheckJson(nest(1025), MiB8), "too-deep");
  assert.equal(precheckJson(enc(`{"a":"${"[".repeat(5000)}"}`), MiB8), "ok");
  // Escaped quotes stay inside the string; an escaped backslash ends before the quote.
  assert.equal(precheckJson(enc(`["\\"[[[[", "\\\\", [[1]]]`), MiB8, 3), "ok");
  assert.equal(precheckJson(enc(`["\\\\", [[[1]]]]`), MiB8, 3), "too-deep");
  // Unbalanced or invalid text is left to the parser.
  assert.equal(precheckJson(enc(`]]]{"`), MiB8), "ok");
});

Deno.test("json stdout over 8 MiB compact is refused before parsing", async () => {
  const over = await callJson("json_emit.sh", ["compact", String(MiB8 + 1)]);
  assert.equal(over.isError, true);
  assert.match(JSON.stringify(over), /larger than 8 MiB/);
  // At the bound the parser runs, and the block rule (64 KiB text) speaks instead.
  const at = await callJson("json_emit.sh", ["compact", String(MiB8)]);
  assert.equal(at.isError, true);
  assert.match(JSON.stringify(at), /larger than 64 KiB/);
  // 9 MiB of whitespace around a tiny result is fine.
  const spaced = await callJson("json_emit.sh", ["json_spaced", String(9 * 1024 * 1024)]);
  assert.equal(spaced.isError, false, JSON.stringify(spaced));
});

Deno.test("json stdout nested deeper than 1,024 levels is refused before parsing", async () => {
  // data nested N deep sits 3 levels down (result object, content array, block object).
  const ok = await callJson("json_emit.sh", ["nested", String(MAX_JSON_DEPTH - 3)]);
  assert.equal(ok.isError, false, JSON.stringify(ok).slice(0, 300));
  const deep = await callJson("json_emit.sh", ["nested", String(MAX_JSON_DEPTH - 2)]);
  assert.equal(deep.isError, true);
  assert.match(JSON.stringify(deep), /nests deeper than 1024 levels/);
});
