/**
 * Declaration errors come in one round: a manifest with ten mixed mistakes reports all ten
 * together, sorted by line, with a did-you-mean for near-miss enum values (issue 17).
 *
 * @module
 */

import assert from "node:assert/strict";
import { BASE_FILES, problemsOf } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.gone]
path = "missing/folder"

[artifacts.gone.views.agent_tools.peek]
builtin = "reed"

[artifacts.app.evals.review]
audience = "agnet"
references = ["nots"]

[artifacts.app.views.agent_tools.look]
builtin = "raed"

[artifacts.app.views.agent_tools.search]
description = "Search."
protocol = "plian"
command = "../../outside.sh"
args = []

[artifacts.app.views.agent_tools.dump]
description = "Dump."
protocol = "plain"
command = "tools/dump.sh"
args = []
overflow = "artefact"
timeout_ms = 0

[artifacts.app.views.agent_tools.run]
description = "Run."
protocol = "json"
command = "tools/run.sh"
args = [{ artifact = "spce" }]
input_schema = { type = "object", properties = 3 }
`;

/** [key path, message, line] — in the order they must be reported. */
const WANT: [string, RegExp, number][] = [
  ["artifacts.gone.path", /missing|does not exist|not found/, 5],
  ["artifacts.gone.views.agent_tools.peek.builtin", /did you mean "read"\?/, 8],
  [
    "artifacts.app.evals.review.audience",
    /must be "agent" or "human" \(did you mean "agent"\?\)/,
    11,
  ],
  ["artifacts.app.evals.review.references[0]", /names no Artifact `nots`/, 12],
  ["artifacts.app.views.agent_tools.look.builtin", /did you mean "read"\?/, 15],
  ["artifacts.app.views.agent_tools.search.protocol", /did you mean "plain"\?/, 19],
  ["artifacts.app.views.agent_tools.search.command", /outside the workspace/, 20],
  ["artifacts.app.views.agent_tools.dump.overflow", /did you mean "artifact"\?/, 28],
  ["artifacts.app.views.agent_tools.dump.timeout_ms", /integer from 1/, 29],
  ["artifacts.app.views.agent_tools.run.args[0]", /names no Artifact `spce`/, 35],
  ["artifacts.app.views.agent_tools.run.input_schema", /./, 36],
];

Deno.test("ten mixed mistakes are reported in one round, in line order", async () => {
  const problems = await problemsOf(TOML, BASE_FILES);
  const shown = problems.map((p) => `${p.line}: ${p.keyPath}: ${p.message}`).join("\n");
  for (const [keyPath, message, line] of WANT) {
    const hit = problems.find((p) => p.keyPath === keyPath);
    assert.ok(hit, `no problem at ${keyPath}:\n${shown}`);
    assert.match(hit.message, message, shown);
    assert.equal(hit.line, line, `${keyPath}:\n${shown}`);
  }
  const lines = problems.map((p) => p.line ?? Infinity);
  assert.deepEqual(lines, [...lines].sort((a, b) => a - b), `not in line order:\n${shown}`);
  assert.equal(problems.length, WANT.length, shown);
});

Deno.test("did-you-mean never quotes a value that is not a near miss", async () => {
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "zzzzzzzz"\n`;
  const [p] = await problemsOf(toml, BASE_FILES);
  assert.equal(p.message, 'must be "agent" or "human"');
});
