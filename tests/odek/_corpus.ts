/**
 * Shared machinery of the validateArtifactRef corpus: case shape, ref builders and the
 * runner. The case tables live in `_corpus_uri.ts` and `_corpus_fs.ts`.
 */

import assert from "node:assert/strict";
import { ArtifactRefError, type ArtifactRefRule, validateArtifactRef } from "../../lib/odek/mod.ts";
import { A_TXT, type Fixture, makeFixture, sha256Hex } from "./_fixture.ts";

/** A rule that must be broken, or the resolved path that must be returned. */
export type Expect = ArtifactRefRule | { ok: string };

/** One corpus case. */
export interface Case {
  name: string;
  ref: (f: Fixture) => unknown;
  roots?: (f: Fixture) => string[];
  expect: Expect | ((f: Fixture) => Expect);
}

const S = "odek.artifact-ref/v1";
const base = (uri: string, extra: Record<string, unknown> = {}) => ({
  schema: S,
  id: "r",
  uri,
  media_type: "text/plain",
  ...extra,
});
/** Builds a ref from the fixture. */
export type RefOf = (f: Fixture) => Record<string, unknown>;
/** A ref to `<fixture>/<rel>`. */
export function at(rel: string, extra?: Record<string, unknown>): RefOf {
  return (f) => base(`file://${f.dir}/${rel}`, extra);
}
/** A ref with a hand-written URI. */
export function raw(uriOf: (f: Fixture) => string, extra?: Record<string, unknown>): RefOf {
  return (f) => base(uriOf(f), extra);
}
/** Expect acceptance resolving to `<fixture>/<rel>`. */
export function okAt(rel: string): (f: Fixture) => Expect {
  return (f) => ({ ok: `${f.dir}/${rel}` });
}
/** Schema name of refs. */
export const SCHEMA = S;
/** SHA-256 of `<out>/a.txt`. */
export const A_SHA: string = sha256Hex(A_TXT);
export { A_TXT, sha256Hex };

/** Run every case as a step against one fresh fixture. */
export async function runCorpus(t: Deno.TestContext, cases: Case[]): Promise<void> {
  const f = await makeFixture();
  try {
    for (const c of cases) {
      await t.step(c.name, async () => {
        const roots = c.roots ? c.roots(f) : [f.out];
        const expect = typeof c.expect === "function" ? c.expect(f) : c.expect;
        const ref = c.ref(f);
        if (typeof expect === "object") {
          assert.equal(await validateArtifactRef(ref, roots), expect.ok);
          return;
        }
        const err = await validateArtifactRef(ref, roots).then(
          () => assert.fail("accepted a ref that must be rejected"),
          (e: unknown) => e,
        );
        assert.ok(err instanceof ArtifactRefError, String(err));
        assert.equal(err.rule, expect);
        assert.equal(err.code, "INVALID_ARTIFACT");
        assert.ok(!err.message.includes(f.dir), "message must not contain a path");
        assert.ok(!err.message.includes("secret"), "message must not contain a path");
        assert.ok(err.message.includes(expect), "message names the rule");
      });
    }
  } finally {
    await f.cleanup();
  }
}
