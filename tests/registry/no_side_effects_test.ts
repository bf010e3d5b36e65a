/**
 * Listing and the static `tools check` create no directory and run no process.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { buildSelectionReport, loadWorkspace, Registry, selectTools } from "../../mod.ts";
import { RESERVED_TOOL_NAMES } from "../../lib/workspace/names.ts";
import { runCapture } from "../helpers/cli.ts";
import { exists, listTree, tempWorkspace, writeTree } from "../helpers/workspace.ts";

/** A workspace whose every program would leave a marker file if it ever ran. */
function markerToml(): string {
  return `
[artifacts.app]
path = "app"

[artifacts.notes]
path = "notes.md"

[artifacts.app.evals.review]
audience = "agent"
references = ["notes"]

[artifacts.app.evals.triage]
audience = "human"

[artifacts.app.views.agent_sessions.ui]
start = { command = "tools/mark.sh", args = ["session-start"], execution_paths = ["app/tools"] }
stop = { command = "tools/mark.sh", args = ["session-stop"], execution_paths = ["app/tools/mark.sh"] }

[artifacts.app.views.agent_tools.json]
description = "Marks json."
protocol = "json"
command = "tools/mark.sh"
args = ["json", { artifact = "notes" }]
execution_paths = ["app/tools/mark.sh"]

[artifacts.app.views.agent_tools.click]
session = "ui"
description = "Marks click."
protocol = "json"
command = "tools/mark.sh"
args = ["click"]

[artifacts.app.views.agent_tools.plain]
description = "Marks plain."
protocol = "plain"
command = "sh"
args = ["tools/mark.sh", "{what}"]
input_schema = { type = "object", properties = { what = { type = "string" } } }

[artifacts.app.views.agent_tools.help]
builtin = "help"
args = ["tools/mark.sh"]

[artifacts.app.views.human_tools.inspect]
description = "Marks human."
protocol = "json"
command = "tools/mark.sh"
args = ["human"]
`;
}

// Seed: "Listing creates no directories and runs no owner code." / "It is static by default:
// no owner process, fingerprint script, database or output directory is created."
Deno.test("listing and static checks leave no marker, no .toolhost and no state dir", async () => {
  await using ws = await tempWorkspace(markerToml(), { "notes.md": "n\n", "app/README.md": "" });
  const marker = join(ws.root, "MARKER");
  // The script touches MARKER (absolute) and MARKER-<arg> when run.
  writeTree(ws.root, {
    "app/tools/mark.sh": {
      text: `#!/bin/sh\ntouch '${marker}' '${marker}-'"$1"\necho ready\n`,
      mode: 0o755,
    },
  });
  const before = listTree(ws.root);
  const stateDir = join(ws.root, "custom-state");

  const loaded = await loadWorkspace(ws.root);
  const reg = await Registry.open(loaded, "app/review", { stateDir });
  const declared = reg.list().filter((t) => !RESERVED_TOOL_NAMES.includes(t.name));
  assert.deepEqual(declared.map((t) => t.name).sort(), [
    "click_app",
    "help_app",
    "json_app",
    "plain_app",
  ]);
  await reg.close();
  for (const spec of [{ eval: "app/review" }, { artifact: "app", audience: "human" as const }]) {
    const report = buildSelectionReport(loaded, selectTools(loaded, spec), Deno.env.toObject());
    assert.equal(report.ready, true, JSON.stringify(report, null, 1));
  }
  const runs: [string[], number][] = [
    [["tools", "check", "--repo", ws.root], 0],
    [["tools", "check", "--repo", ws.root, "app/review", "--state-dir", stateDir], 0],
    // `notes` is outside `app` alone: the operand check fails (exit 1), still statically
    [["tools", "check", "--repo", ws.root, "--artifact", "app", "--audience", "agent"], 1],
    [["tools", "check", "--repo", ws.root, "--eval", "app/triage", "--json"], 0],
    [["tools", "list", "--repo", ws.root, "--eval", "app/review", "--json"], 0],
    [["tools", "list", "--repo", ws.root, "--eval", "app/review", "--state-dir", stateDir], 0],
  ];
  for (const [argv, code] of runs) {
    const r = await runCapture(argv);
    assert.equal(r.code, code, `${argv.join(" ")}: ${r.err}`);
  }

  assert.ok(!exists(marker), "a declared program ran");
  assert.ok(!exists(join(ws.root, ".toolhost")), ".toolhost was created");
  assert.ok(!exists(stateDir), "the state dir was created");
  assert.deepEqual(listTree(ws.root), before, "the workspace changed");
});

Deno.test("the marker script does run when executed (the test can fail)", async () => {
  await using ws = await tempWorkspace(markerToml(), { "notes.md": "n\n", "app/README.md": "" });
  const marker = join(ws.root, "MARKER");
  writeTree(ws.root, {
    "app/tools/mark.sh": { text: `#!/bin/sh\ntouch '${marker}'\n`, mode: 0o755 },
  });
  const out = await new Deno.Command(join(ws.root, "app/tools/mark.sh")).output();
  assert.equal(out.code, 0);
  assert.ok(exists(marker));
});
