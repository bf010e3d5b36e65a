/**
 * Tool descriptions: nonblank, at most 4000 UTF-16 code units, only `{artifactName}`
 * interpolated (to the canonical Artifact ID), `{{` / `}}` literal braces.
 */

import assert from "node:assert/strict";
import { selectTools } from "../../lib/registry/selection.ts";
import {
  BASE_FILES,
  BASE_TOML,
  expectLoads,
  expectProblem,
  JSON_TOOL,
  toolTable,
} from "../helpers/workspace.ts";

const AT = "artifacts.app.views.agent_tools.x";

function withDescription(description: string, builtin = false): string {
  const fields = builtin ? { builtin: "read", description } : { ...JSON_TOOL, description };
  return BASE_TOML + toolTable("app", "x", fields);
}

async function listedDescription(toml: string): Promise<string> {
  const ws = await expectLoads(toml, BASE_FILES);
  return selectTools(ws, { eval: "app/review" }).tools.find((t) => t.name === "x_app")!
    .description;
}

// Seed: "Descriptions must be nonblank, at most 4000 UTF-16 code units, and support only
// {artifactName} interpolation (the canonical Artifact ID)."
for (const builtin of [false, true]) {
  const kind = builtin ? "built-in" : "command";
  Deno.test(`${kind} description: 3999 and 4000 code units load, 4001 is rejected`, async () => {
    assert.equal(
      (await listedDescription(withDescription("d".repeat(3999), builtin))).length,
      3999,
    );
    assert.equal(
      (await listedDescription(withDescription("d".repeat(4000), builtin))).length,
      4000,
    );
    await expectProblem(withDescription("d".repeat(4001), builtin), BASE_FILES, {
      keyPath: `${AT}.description`,
      message: /4001 UTF-16 code units; the limit is 4000/,
    });
  });
}

Deno.test("description length counts UTF-16 code units: 😀 is two", async () => {
  // 3998 + 2 = 4000 code units (3999 code points): accepted.
  const at = "d".repeat(3998) + "😀";
  assert.equal(at.length, 4000);
  assert.equal(await listedDescription(withDescription(at)), at);
  // 3999 + 2 = 4001 code units although only 4000 code points: rejected.
  const over = "d".repeat(3999) + "😀";
  assert.equal([...over].length, 4000);
  await expectProblem(withDescription(over), BASE_FILES, {
    keyPath: `${AT}.description`,
    message: /4001 UTF-16 code units/,
  });
});

Deno.test("blank descriptions are rejected (empty, spaces, newlines)", async () => {
  for (const blank of ["", " ", "\n\t  \n"]) {
    for (const builtin of [false, true]) {
      await expectProblem(withDescription(blank, builtin), BASE_FILES, {
        keyPath: `${AT}.description`,
        message: /blank/,
      });
    }
  }
  assert.equal(await listedDescription(withDescription(" a ")), " a ");
});

Deno.test("{artifactName} is interpolated to the canonical Artifact ID", async () => {
  assert.equal(
    await listedDescription(withDescription("Search {artifactName} ({artifactName}).")),
    "Search app (app).",
  );
  assert.equal(await listedDescription(withDescription("{artifactName}", true)), "app");
});

Deno.test("any other {x} placeholder is rejected", async () => {
  for (const bad of ["{x}", "a {artifactId} b", "{ artifactName }", "{artifactname}", "{}", "{"]) {
    await expectProblem(withDescription(bad), BASE_FILES, {
      keyPath: `${AT}.description`,
      message: /only `\{artifactName\}` is interpolated/,
    });
  }
  await expectProblem(withDescription("a } b"), BASE_FILES, {
    keyPath: `${AT}.description`,
    message: /unmatched `\}`/,
  });
});

Deno.test("{{ and }} are literal braces", async () => {
  assert.equal(
    await listedDescription(withDescription("Use {{x}} and {{{artifactName}}}.")),
    "Use {x} and {app}.",
  );
});

Deno.test("a built-in without a description gets its default, interpolated", async () => {
  const ws = await expectLoads(BASE_TOML + toolTable("app", "x", { builtin: "read" }));
  const d = selectTools(ws, { eval: "app/review" }).tools[0].description;
  assert.equal(d, "Read lines of a file in app.");
});
