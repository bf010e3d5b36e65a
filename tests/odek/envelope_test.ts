/** parseEnvelope detection and structural rules; validateEnvelope fail-closed with index. */

import assert from "node:assert/strict";
import {
  ArtifactRefError,
  InvalidEnvelopeError,
  MAX_ARTIFACTS_PER_ENVELOPE,
  parseEnvelope,
  SCHEMA_ARTIFACT_REF,
  SCHEMA_TOOL_RESULT,
  validateEnvelope,
} from "../../lib/odek/mod.ts";
import { makeFixture } from "./_fixture.ts";

const ref = (i: number, uri = `file:///tmp/x${i}`) => ({
  schema: SCHEMA_ARTIFACT_REF,
  id: `r${i}`,
  uri,
  media_type: "text/plain",
});
const env = (extra: Record<string, unknown>) =>
  JSON.stringify({ schema: SCHEMA_TOOL_RESULT, text: "t", ...extra });

Deno.test("constants match the seed", () => {
  assert.equal(SCHEMA_TOOL_RESULT, "odek.tool-result/v1");
  assert.equal(SCHEMA_ARTIFACT_REF, "odek.artifact-ref/v1");
  assert.equal(MAX_ARTIFACTS_PER_ENVELOPE, 64);
});

Deno.test("plain text results are not envelopes (null)", () => {
  for (
    const text of [
      "",
      "hello",
      "[artifact] id=x",
      "not json {",
      "null",
      "42",
      '"odek.tool-result/v1"',
      "[]",
      `[${env({})}]`,
      JSON.stringify({ text: "no schema" }),
      JSON.stringify({ schema: "odek.tool-result/v2", text: "t" }),
      JSON.stringify({ schema: "odek.tool-result/v1 ", text: "t" }),
      JSON.stringify({ schema: "ODEK.TOOL-RESULT/V1", text: "t" }),
      JSON.stringify({ schema: ["odek.tool-result/v1"], text: "t" }),
      JSON.stringify({ nested: { schema: SCHEMA_TOOL_RESULT, text: "t" } }),
    ]
  ) {
    assert.equal(parseEnvelope(text), null, text);
  }
  assert.equal(parseEnvelope(5 as unknown as string), null);
});

Deno.test("well-formed envelopes parse; unknown fields ignored", () => {
  assert.deepEqual(parseEnvelope(env({})), {
    schema: SCHEMA_TOOL_RESULT,
    text: "t",
    artifacts: [],
  });
  const e = parseEnvelope(
    env({
      extra: 1,
      artifacts: [{ ...ref(0), summary: "s", size_bytes: 3, sha256: "a", more: [1] }],
    }),
  );
  assert.deepEqual(e?.artifacts, [{ ...ref(0), summary: "s", size_bytes: 3, sha256: "a" }]);
  const ws = parseEnvelope(`  \n${env({ artifacts: [] })}\n`);
  assert.equal(ws?.text, "t");
});

Deno.test("missing required ref fields become empty and are rejected by validation", async () => {
  const e = parseEnvelope(env({ artifacts: [{ schema: SCHEMA_ARTIFACT_REF }] }));
  assert.deepEqual(e?.artifacts[0], {
    schema: SCHEMA_ARTIFACT_REF,
    id: "",
    uri: "",
    media_type: "",
  });
  await assert.rejects(validateEnvelope(e!, ["/tmp"]), (err: unknown) => {
    assert.ok(err instanceof ArtifactRefError);
    assert.equal(err.rule, "missing-id");
    assert.equal(err.index, 0);
    return true;
  });
});

Deno.test("64 refs parse, 65 refs are malformed", () => {
  const at = (n: number) => env({ artifacts: Array.from({ length: n }, (_, i) => ref(i)) });
  assert.equal(parseEnvelope(at(63))?.artifacts.length, 63);
  assert.equal(parseEnvelope(at(64))?.artifacts.length, 64);
  assert.throws(() => parseEnvelope(at(65)), (e: unknown) => {
    assert.ok(e instanceof InvalidEnvelopeError);
    assert.equal(e.rule, "too-many-artifacts");
    assert.equal(e.code, "INVALID_ARTIFACT");
    return true;
  });
});

Deno.test("envelopes that claim the schema but are malformed fail closed", () => {
  const cases: [string, string][] = [
    [JSON.stringify({ schema: SCHEMA_TOOL_RESULT }), "envelope-text"],
    [JSON.stringify({ schema: SCHEMA_TOOL_RESULT, text: null }), "envelope-text"],
    [JSON.stringify({ schema: SCHEMA_TOOL_RESULT, text: 5 }), "envelope-text"],
    [JSON.stringify({ schema: SCHEMA_TOOL_RESULT, text: ["a"] }), "envelope-text"],
    [env({ artifacts: null }), "envelope-artifacts"],
    [env({ artifacts: {} }), "envelope-artifacts"],
    [env({ artifacts: "file:///x" }), "envelope-artifacts"],
    [env({ artifacts: ["file:///x"] }), "artifact-not-object"],
    [env({ artifacts: [ref(0), null] }), "artifact-not-object"],
    [env({ artifacts: [[ref(0)]] }), "artifact-not-object"],
    [env({ artifacts: [{ ...ref(0), id: 5 }] }), "artifact-field-type"],
    [env({ artifacts: [{ ...ref(0), uri: { path: "/x" } }] }), "artifact-field-type"],
    [env({ artifacts: [{ ...ref(0), size_bytes: "12" }] }), "artifact-field-type"],
    [env({ artifacts: [{ ...ref(0), size_bytes: 1.5 }] }), "artifact-field-type"],
    [env({ artifacts: [{ ...ref(0), sha256: 1 }] }), "artifact-field-type"],
    [env({ artifacts: [{ ...ref(0), summary: {} }] }), "artifact-field-type"],
  ];
  for (const [text, rule] of cases) {
    assert.throws(() => parseEnvelope(text), (e: unknown) => {
      assert.ok(e instanceof InvalidEnvelopeError, text);
      assert.equal(e.rule, rule, text);
      assert.ok(!e.message.includes("/x"));
      return true;
    });
  }
});

Deno.test("duplicate keys: the last one wins, as in JSON.parse", () => {
  const text = `{"schema":"x","schema":"${SCHEMA_TOOL_RESULT}","text":"t"}`;
  assert.equal(parseEnvelope(text)?.text, "t");
  assert.equal(parseEnvelope(`{"schema":"${SCHEMA_TOOL_RESULT}","schema":"x","text":"t"}`), null);
});

Deno.test("__proto__ keys do not pollute and are ignored", () => {
  const text = `{"schema":"${SCHEMA_TOOL_RESULT}","text":"t","__proto__":{"artifacts":5}}`;
  assert.deepEqual(parseEnvelope(text)?.artifacts, []);
});

Deno.test("validateEnvelope: one invalid ref fails the whole envelope, naming its index", async () => {
  const f = await makeFixture();
  try {
    const good = (i: number) => ({ ...ref(i, `file://${f.out}/a.txt`) });
    const e = parseEnvelope(env({
      artifacts: [good(0), good(1), { ...good(2), uri: `file://${f.out}/../secret.txt` }, good(3)],
    }))!;
    await assert.rejects(validateEnvelope(e, [f.out]), (err: unknown) => {
      assert.ok(err instanceof ArtifactRefError);
      assert.equal(err.index, 2);
      assert.equal(err.rule, "path-not-clean");
      assert.match(err.message, /artifacts\[2\].*path-not-clean/);
      assert.ok(!err.message.includes(f.dir));
      return true;
    });
    const ok = parseEnvelope(env({ artifacts: [good(0), good(1)] }))!;
    const found = await validateEnvelope(ok, [f.out]);
    assert.deepEqual(found.map((x) => x.path), [`${f.out}/a.txt`, `${f.out}/a.txt`]);
    assert.equal(found[0].size, 15);
  } finally {
    await f.cleanup();
  }
});
