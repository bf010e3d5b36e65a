import assert from "node:assert/strict";
import { capText, cleanText, TRUNCATION_MARKER } from "../../lib/text/text_clean.ts";
import { LIMITS } from "../../lib/results/types.ts";
import { assertError, callPlain } from "./helpers.ts";

const KiB = 1024;
const plain = (mode: string, n?: number, extra = {}) =>
  callPlain("plain_emit.sh", n === undefined ? [mode] : [mode, String(n)], extra);

function textOf(r: { content: { type: string; text?: string }[] }): string {
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0].type, "text");
  return r.content[0].text!;
}

Deno.test("stdout becomes one text block", async () => {
  assert.deepEqual(await plain("hello"), {
    content: [{ type: "text", text: "hello\n" }],
    isError: false,
  });
});

Deno.test("controls and escape sequences are removed; newline and tab kept", async () => {
  assert.equal(textOf(await plain("controls")), "red\nbelltab\thereend\n");
  assert.equal(cleanText("a\r\nb\x00c\x1b[1;31md\u0085e\u009bf"), "a\nbcdef");
});

Deno.test("invalid UTF-8 is decoded lossily", async () => {
  assert.equal(textOf(await plain("invalid_utf8")), "a\uFFFDb\n");
});

Deno.test("64 KiB of output is kept whole; more is cut with a marker", async () => {
  assert.equal(textOf(await plain("bytes", 64 * KiB - 1)).length, 64 * KiB - 1);
  assert.equal(textOf(await plain("bytes", 64 * KiB)), "a".repeat(64 * KiB));
  for (const n of [64 * KiB + 1, 300 * KiB, 2 * 1024 * KiB]) {
    const t = textOf(await plain("bytes", n));
    assert.ok(t.endsWith(TRUNCATION_MARKER), `n=${n}`);
    assert.equal(new TextEncoder().encode(t).length, 64 * KiB);
  }
});

Deno.test("capText cuts on a character boundary", () => {
  const t = capText("é".repeat(40000), 64 * KiB);
  assert.ok(t.endsWith(TRUNCATION_MARKER));
  assert.ok(new TextEncoder().encode(t).length <= 64 * KiB);
  assert.equal(t.includes("\uFFFD"), false);
  assert.equal(capText("short", 64 * KiB, true), "short" + TRUNCATION_MARKER);
});

Deno.test("nonzero exit marks the bounded stdout as an error", async () => {
  assert.deepEqual(await plain("fail"), {
    content: [{ type: "text", text: "no matches for that\n" }],
    isError: true,
  });
  assertError(await plain("fail_empty"), "The tool exited with status 1.");
});

Deno.test("plain tools get empty stdin", async () => {
  assert.equal(textOf(await plain("read_stdin")), "stdin bytes: 0\n");
});

Deno.test("output past the 16 MiB stream cap: the tool is stopped, 64 KiB kept with the marker", async () => {
  // Seed: stdout "becomes one text block, capped at 64 KiB with an explicit truncation marker".
  const r = await callPlain("misbehave.sh", ["forever"]);
  assert.equal(r.isError, false);
  const text = (r.content[0] as { text: string }).text;
  assert.ok(text.endsWith("[output truncated at 64 KiB]"), text.slice(-80));
  assert.equal(new TextEncoder().encode(text).length <= LIMITS.maxTextBytes, true);
});

Deno.test("timeouts and signals are generic errors", async () => {
  assertError(
    await callPlain("misbehave.sh", ["sleep"], { timeoutMs: 150 }),
    "The tool timed out after 150 ms.",
  );
  assertError(
    await callPlain("misbehave.sh", ["kill_self"]),
    "The tool was killed by signal SIGKILL.",
  );
});
