/** search_artifact_content per seed 003: matching, filters, boundaries, size bound. */

import assert from "node:assert/strict";
import {
  ARTIFACT_TOOL_SPECS,
  ArtifactStore,
  callArtifactTool,
  DEFAULT_CONTEXT_CHARS,
  DEFAULT_MAX_RESULTS,
  isArtifactToolName,
  searchArtifactContent,
} from "../../lib/artifacts/mod.ts";
import { LIMITS } from "../../lib/results/types.ts";
import { data, errorText, makeStore } from "./_store.ts";

interface M {
  artifact_ref: string;
  field: string;
  position: number;
  snippet: string;
}

const matchesOf = (d: Record<string, unknown>) => d.matches as M[];

async function sample() {
  return await makeStore([
    { id: "notes", content: "Alpha beta GAMMA beta", summary: "Beta summary" },
    { id: "data", content: '{"beta": 1}', media_type: "application/json" },
    { id: "bin", content: new Uint8Array([0x62, 0x65, 0x74, 0x61, 0x00]), summary: "binary" },
  ]);
}

Deno.test("finds the string exactly, ignoring case, in every text field incl. content", async () => {
  const t = await sample();
  try {
    const d = data(await t.store.search({ query: "BETA" }));
    assert.deepEqual(
      matchesOf(d).map((m) => [m.artifact_ref, m.field, m.position]),
      [["notes", "summary", 0], ["notes", "content", 6], ["notes", "content", 17], [
        "data",
        "content",
        2,
      ]],
    );
    assert.equal(d.has_more, false);
    const ids = matchesOf(data(await t.store.search({ query: "NOTES" })));
    assert.deepEqual(ids.map((m) => m.field), ["id"]);
    const mt = matchesOf(data(await t.store.search({ query: "application/JSON" })));
    assert.deepEqual(mt.map((m) => [m.artifact_ref, m.field]), [["data", "media_type"]]);
  } finally {
    await t.cleanup();
  }
});

Deno.test("the query is literal, not a pattern; positions stay in the original text", async () => {
  const t = await makeStore([{ id: "x", content: "axb a.b (c] İİİabc ÉCOLE" }]);
  try {
    const pos = async (query: string) =>
      matchesOf(data(await t.store.search({ query, artifact_ref: "x" })))
        .filter((m) => m.field === "content").map((m) => m.position);
    assert.deepEqual(await pos("a.b"), [4]);
    assert.deepEqual(await pos("(c]"), [8]);
    assert.deepEqual(await pos("ABC"), [15]);
    assert.deepEqual(await pos("école"), [19]);
    assert.deepEqual(await pos(".*"), []);
  } finally {
    await t.cleanup();
  }
});

Deno.test("context_chars boundaries: -1 refused, 0 is the match alone, 1 adds one each side", async () => {
  const t = await sample();
  try {
    const snip = async (ctx: number) =>
      matchesOf(data(await t.store.search({ query: "gamma", context_chars: ctx })))[0].snippet;
    assert.match(
      errorText(await t.store.search({ query: "gamma", context_chars: -1 })),
      /^InvalidInputException:/,
    );
    assert.equal(await snip(0), "GAMMA");
    assert.equal(await snip(1), " GAMMA ");
    assert.equal(await snip(1000), "Alpha beta GAMMA beta");
    assert.equal(DEFAULT_CONTEXT_CHARS, 200);
  } finally {
    await t.cleanup();
  }
});

Deno.test("max_results boundaries: 0 refused, 1 returns one with has_more, default 10", async () => {
  const t = await makeStore([{ id: "many", content: "q ".repeat(12) }]);
  try {
    assert.match(
      errorText(await t.store.search({ query: "q", max_results: 0 })),
      /^InvalidInputException:/,
    );
    assert.match(
      errorText(await t.store.search({ query: "q", max_results: -3 })),
      /^InvalidInputException:/,
    );
    assert.match(
      errorText(await t.store.search({ query: "q", max_results: 1.5 })),
      /^InvalidInputException:/,
    );
    const one = data(await t.store.search({ query: "q", max_results: 1 }));
    assert.equal(matchesOf(one).length, 1);
    assert.equal(one.has_more, true);
    assert.equal(DEFAULT_MAX_RESULTS, 10);
    const dflt = data(await t.store.search({ query: "q" }));
    assert.equal(matchesOf(dflt).length, 10);
    assert.equal(dflt.has_more, true);
    for (const [max, more] of [[11, true], [12, false], [13, false]] as const) {
      const d = data(await t.store.search({ query: "q", max_results: max }));
      assert.equal(matchesOf(d).length, Math.min(max, 12));
      assert.equal(d.has_more, more, String(max));
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("filters: artifact_ref (unknown → empty) and artifact_type (media type word)", async () => {
  const t = await sample();
  try {
    const refs = async (
      args: Record<string, unknown>,
    ) => [
      ...new Set(
        matchesOf(data(await t.store.search({ query: "beta", ...args }))).map((m) =>
          m.artifact_ref
        ),
      ),
    ];
    assert.deepEqual(await refs({ artifact_ref: "data" }), ["data"]);
    assert.deepEqual(data(await t.store.search({ query: "beta", artifact_ref: "nope" })), {
      matches: [],
      has_more: false,
    });
    assert.deepEqual(await refs({ artifact_type: "json" }), ["data"]);
    assert.deepEqual(await refs({ artifact_type: "TEXT" }), ["notes"]);
    assert.deepEqual(await refs({ artifact_type: "text/plain" }), ["notes"]);
    assert.deepEqual(await refs({ artifact_type: "image" }), []);
    assert.match(
      errorText(await t.store.search({ query: "beta", artifact_type: "" })),
      /^InvalidInputException:/,
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("nothing found is an empty result; binary content is skipped, not an error", async () => {
  const t = await sample();
  try {
    assert.deepEqual(data(await t.store.search({ query: "zzz" })), {
      matches: [],
      has_more: false,
    });
    const d = data(await t.store.search({ query: "binary" }));
    assert.deepEqual(matchesOf(d).map((m) => m.field), ["summary"]);
    assert.deepEqual(data(await new ArtifactStore().search({ query: "x" })), {
      matches: [],
      has_more: false,
    });
  } finally {
    await t.cleanup();
  }
});

Deno.test("a changed file is reported as unavailable, other artifacts still searched", async () => {
  const t = await sample();
  try {
    await Deno.writeTextFile(`${t.dir}/f1`, "beta beta", { append: true });
    const d = data(await t.store.search({ query: "beta" }));
    assert.deepEqual(d.unavailable, ["data"]);
    assert.ok(matchesOf(d).every((m) => m.artifact_ref === "notes"));
  } finally {
    await t.cleanup();
  }
});

Deno.test("unbounded context_chars and max_results stay within the 512 KiB json block", async () => {
  const t = await makeStore([{ id: "big", content: "needle ".repeat(200_000) }]);
  try {
    const d = data(
      await t.store.search({ query: "needle", context_chars: 10_000_000, max_results: 1_000_000 }),
    );
    assert.ok(new TextEncoder().encode(JSON.stringify(d)).length <= LIMITS.maxJsonBytes);
    assert.ok(matchesOf(d).length >= 1);
    assert.equal(d.has_more, true);
  } finally {
    await t.cleanup();
  }
});

Deno.test("argument refusals", async () => {
  const store = new ArtifactStore();
  for (
    const args of [null, {}, { query: "" }, { query: 5 }, { query: "x", bogus: 1 }, {
      query: "x",
      artifact_ref: 3,
    }, { query: "x", context_chars: "2" }]
  ) {
    assert.match(errorText(await searchArtifactContent(store, args)), /^InvalidInputException:/);
  }
});

Deno.test("tool specs and dispatch; no registry → SystemException", async () => {
  assert.deepEqual(ARTIFACT_TOOL_SPECS.map((s) => s.name), [
    "get_artifact_field",
    "search_artifact_content",
  ]);
  for (const s of ARTIFACT_TOOL_SPECS) {
    assert.equal(s.inputSchema.type, "object");
    assert.equal(s.inputSchema.additionalProperties, false);
    assert.ok(s.description.length > 0 && s.description.length <= LIMITS.maxDescriptionUnits);
  }
  assert.ok(isArtifactToolName("get_artifact_field") && !isArtifactToolName("read"));
  for (const name of ["get_artifact_field", "search_artifact_content"]) {
    assert.match(
      errorText(await callArtifactTool(name, { query: "x" }, undefined)),
      /^SystemException:/,
    );
  }
  const t = await sample();
  try {
    const d = data(
      await callArtifactTool(
        "get_artifact_field",
        { artifact_ref: "notes", field: "summary" },
        t.store,
      ),
    );
    assert.equal(d.content, "Beta summary");
    assert.throws(() => callArtifactTool("read", {}, t.store));
  } finally {
    await t.cleanup();
  }
});
