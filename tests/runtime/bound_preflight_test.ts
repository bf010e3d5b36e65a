/**
 * A bound plain call whose argv cannot be built (a placeholder whose optional property
 * was not given) is refused before its tool session starts: no harness runs and no
 * session directory is created. The same tool with the value given starts the session.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  assertStateClean,
  HARNESS,
  openRegistry,
  sessionEntries,
  sessionToml,
  textOf,
} from "../sessions/_helpers.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

// `put_app` with an optional value: admission accepts `{}`, substitution cannot.
const OPTIONAL_PUT = `
[artifacts.app.views.agent_tools.maybe]
session = "app"
description = "Store an optional value."
protocol = "plain"
command = "./harness.sh"
args = ["put", "{value}"]
input_schema = { type = "object", properties = { value = { type = "string" } }, additionalProperties = false }
`;

Deno.test("a bound plain call with a missing placeholder value is refused before the session starts", async () => {
  await using ws = await tempWorkspace(sessionToml() + OPTIONAL_PUT, {
    "app/harness.sh": { text: HARNESS, mode: 0o755 },
    "app/README.md": "# app\n",
  });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  try {
    const refused = await reg.call("maybe_app", {});
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /needs argument `value`, which was not given/);
    assert.equal(existsSync(join(ws.root, "app", "starts.log")), false, "the harness was started");
    assert.deepEqual(sessionEntries(state), [], "a session directory was created");
    assert.deepEqual(reg.sessions.sessions().map((s) => s.phase), []);
    const stored = await reg.call("maybe_app", { value: "given-value-91c" });
    assert.deepEqual(stored, { content: [{ type: "text", text: "stored\n" }], isError: false });
    assert.equal(existsSync(join(ws.root, "app", "starts.log")), true);
  } finally {
    await reg.close();
  }
  assertStateClean(state);
});

// A bound json tool whose program is missing: nothing to run, so no session either.
const MISSING = `
[artifacts.app.views.agent_tools.ghost]
session = "app"
description = "A tool whose program is gone."
protocol = "json"
command = "./not-there.sh"
args = []
`;

Deno.test("a bound call whose program cannot be found is refused before the session starts", async () => {
  await using ws = await tempWorkspace(sessionToml() + MISSING, {
    "app/harness.sh": { text: HARNESS, mode: 0o755 },
    "app/README.md": "# app\n",
  });
  const state = join(ws.root, ".state");
  const reg = await openRegistry(ws.root, state);
  try {
    const refused = await reg.call("ghost_app", {});
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /cannot run: the command's file does not exist/);
    assert.equal(existsSync(join(ws.root, "app", "starts.log")), false, "the harness was started");
    assert.deepEqual(sessionEntries(state), [], "a session directory was created");
  } finally {
    await reg.close();
  }
  assertStateClean(state);
});
