/**
 * A confined tool whose scope holds an Artifact at the workspace root runs with the
 * default state directory (`<root>/.toolhost/state`, hidden inside the sandbox): its own
 * call directories and artifact directory are bound inside that hidden folder, and the
 * rest of the state directory stays out of sight and read-only.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const PROBE = `#!/bin/sh
echo "tmp:$(ls -A "$TMPDIR" | wc -l)"
if (echo x > "$TMPDIR/w") 2>/dev/null; then echo "tmp writable"; fi
if [ -e .toolhost/state/secret.txt ]; then echo "SEES secret"; fi
if (echo x > .toolhost/state/planted) 2>/dev/null; then echo "WROTE state"; fi
exit 0
`;

const skip = skipReason();

for (const mode of ["read", "write"]) {
  Deno.test(`a ${mode}-confined tool of an Artifact at the root runs with the default state dir`, async () => {
    if (skip) return printSkip(`root artifact (${mode})`, skip);
    await using ws = await tempWorkspace(
      `[artifacts.root]
path = "."

[artifacts.root.evals.review]
audience = "agent"

[artifacts.root.views.agent_tools.probe]
description = "Probe."
protocol = "plain"
command = "tools/probe.sh"
args = []
sandbox = "${mode}"
`,
      { "tools/probe.sh": { text: PROBE, mode: 0o755 }, ".toolhost/state/secret.txt": "s\n" },
    );
    const stateDir = `${ws.root}/.toolhost/state`;
    const reg = await Registry.open(await loadWorkspace(ws.root), "root/review", {
      stateDir,
      env: { PATH: "/usr/bin:/bin" },
    });
    try {
      const r = await reg.call("probe_root", {});
      const out = r.content.map((b) => "text" in b ? b.text : "").join("");
      assert.equal(r.isError, false, out);
      assert.match(out, /^tmp:0$/m, out);
      assert.match(out, /^tmp writable$/m, out);
      assert.doesNotMatch(out, /SEES|WROTE/, out);
    } finally {
      await reg.close();
    }
    assert.throws(() => Deno.statSync(`${stateDir}/planted`));
  });
}
