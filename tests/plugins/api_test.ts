import assert from "node:assert/strict";
import { canonicalJson } from "../../lib/plugins/canonical.ts";
import { withDeadline } from "../../lib/plugins/deadline.ts";
import { frozenCopy } from "../../lib/plugins/freeze.ts";
import { isNameGlob, matchNameGlob } from "../../lib/plugins/name_glob.ts";
import { Redactor } from "../../lib/plugins/redact.ts";
import { checkReplacement } from "../../lib/plugins/result_check.ts";

Deno.test("tool-name globs: *, ? and literals; no pathological backtracking", () => {
  assert.ok(matchNameGlob("files_*", "files_write_app"));
  assert.ok(matchNameGlob("*_app", "read_app"));
  assert.ok(matchNameGlob("r?ad_*", "read_app"));
  assert.ok(!matchNameGlob("read_*", "xread_app"));
  assert.ok(matchNameGlob("*", ""));
  assert.ok(!matchNameGlob("a*a*a*a*a*a*a*b", "a".repeat(5000)));
  assert.ok(
    isNameGlob("shell_exec_*") && !isNameGlob("Shell") && !isNameGlob("a/b") && !isNameGlob(""),
  );
  assert.ok(isNameGlob("a".repeat(128)) && !isNameGlob("a".repeat(129)));
});

Deno.test("canonical JSON sorts keys at every depth", () => {
  assert.equal(
    canonicalJson({ b: [{ z: 1, a: null }], a: "x" }),
    '{"a":"x","b":[{"a":null,"z":1}]}',
  );
});

Deno.test("frozen copies are deep and detached", () => {
  const src = { a: { b: [1, { c: 2 }] } };
  const f = frozenCopy(src);
  assert.ok(Object.isFrozen(f.a.b[1]));
  src.a.b.push(3);
  assert.equal(f.a.b.length, 2);
});

Deno.test("the redactor masks longer values first, in text and JSON (keys too)", () => {
  const r = new Redactor();
  r.add("abc");
  r.add("abcdef");
  r.add("");
  assert.equal(r.text("x abcdef abc"), "x [protected] [protected]");
  const out = r.result({
    content: [{ type: "json", data: { abc: ["abcdef", 1] } }],
    isError: false,
  });
  assert.deepEqual(out.content[0], { type: "json", data: { "[protected]": ["[protected]", 1] } });
});

Deno.test("the redactor masks values that JSON escapes: quotes, backslashes, newlines", () => {
  const r = new Redactor();
  const pem = '-----BEGIN KEY-----\nMIIB"x\\y\n-----END KEY-----';
  r.add(pem);
  r.add('pa"ss\\word');
  const text = r.result({ content: [{ type: "text", text: `key=${pem}` }], isError: false });
  assert.deepEqual(text.content[0], { type: "text", text: "key=[protected]" });
  const json = r.result({
    content: [{ type: "json", data: { v: ['secret=pa"ss\\word'] } }],
    isError: true,
  });
  assert.deepEqual(json.content[0], { type: "json", data: { v: ["secret=[protected]"] } });
  const clean = { content: [{ type: "text" as const, text: "nothing here" }], isError: false };
  assert.equal(r.result(clean), clean); // untouched results are passed through as they are
});

Deno.test("deadlines: a hook that does not settle, throws or is cancelled is reported", async () => {
  assert.deepEqual(await withDeadline(() => 1, 100), { ok: true, value: 1 });
  assert.equal((await withDeadline(() => new Promise(() => {}), 10)).ok, false);
  const threw = await withDeadline(() => {
    throw new RangeError("x");
  }, 100);
  assert.deepEqual(threw, { ok: false, why: "threw", detail: "RangeError: x" });
  const ctl = new AbortController();
  ctl.abort();
  assert.equal((await withDeadline(() => 1, 100, ctl.signal) as { why: string }).why, "cancelled");
});

Deno.test("replacement results are validated like json-protocol output", async () => {
  assert.equal((await checkReplacement({ content: [{ type: "text", text: "x" }] })).ok, true);
  assert.equal(
    (await checkReplacement({ content: [{ type: "text", text: "x" }], extra: 1 })).ok,
    false,
  );
  const img = await checkReplacement({
    content: [{ type: "image", mimeType: "image/png", path: "a.png" }],
  });
  assert.deepEqual(img, {
    ok: false,
    rule: "content block 1: images from hooks must be embedded (data)",
  });
  const blocks = (n: number) => ({
    content: Array.from({ length: n }, () => ({ type: "text", text: "x" })),
  });
  assert.equal((await checkReplacement(blocks(32))).ok, true);
  assert.equal((await checkReplacement(blocks(33))).ok, false);
  assert.equal(
    (await checkReplacement({ content: [{ type: "text", text: "x".repeat(65536) }] })).ok,
    true,
  );
  assert.equal(
    (await checkReplacement({ content: [{ type: "text", text: "x".repeat(65537) }] })).ok,
    false,
  );
});
