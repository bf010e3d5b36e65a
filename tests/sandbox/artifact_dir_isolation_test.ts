/**
 * `TOOLHOST_ARTIFACT_DIR` is bound writable into a confined tool. It must be that tool's
 * own: a `sandbox = "none"` tool (which sees no Artifact) must not read what other tools
 * left there — another tool's spilled output (here a `read` tool's, which saw the scope)
 * or the artifact files another confined tool wrote — nor change them.
 */

import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.big]
description = "Print the secret and a lot more (spilled)."
protocol = "plain"
command = "tools/big.sh"
args = []
overflow = "artifact"
sandbox = "read"

[artifacts.app.views.agent_tools.keep]
description = "Write an artifact file."
protocol = "plain"
command = "tools/keep.sh"
args = []
sandbox = "read"

[artifacts.app.views.agent_tools.peek]
description = "Look for other tools' artifacts."
protocol = "plain"
command = "tools/peek.sh"
args = []
sandbox = "none"
`;

const FILES = {
  "app/secret.txt": "SECRET-OF-THE-SCOPE\n",
  "app/tools/big.sh": {
    text: "#!/bin/sh\ncat secret.txt\nhead -c 100000 /dev/zero | tr '\\0' a\necho\n",
    mode: 0o755,
  },
  "app/tools/keep.sh": {
    text: '#!/bin/sh\ncat secret.txt > "$TOOLHOST_ARTIFACT_DIR/kept.txt" && echo kept\n',
    mode: 0o755,
  },
  "app/tools/peek.sh": {
    text: `#!/bin/sh
d="$TOOLHOST_ARTIFACT_DIR"
echo "entries:$(ls -A "$d" | wc -l) parent:$(ls -A "$d/.." 2>/dev/null | wc -l)"
if grep -rqs SECRET "$d" "$d/.."; then echo LEAKED; fi
for f in "$d"/../*/*; do if [ -f "$f" ] && (echo x >> "$f") 2>/dev/null; then echo TAMPERED; fi; done
exit 0
`,
    mode: 0o755,
  },
};

const skip = skipReason();

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

Deno.test("a confined tool sees only its own artifact directory", async () => {
  if (skip) return printSkip("artifact dir isolation", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    stateDir: `${ws.root}/.toolhost/state`,
    env: { PATH: "/usr/bin:/bin" },
  });
  try {
    const big = await reg.call("big_app", {});
    assert.match(text(big), /SECRET-OF-THE-SCOPE/);
    assert.match(text(big), /odek|artifact/i, "the output was spilled");
    assert.equal(text(await reg.call("keep_app", {})), "kept\n");
    const peek = await reg.call("peek_app", {});
    const out = text(peek);
    assert.equal(peek.isError, false, out);
    assert.doesNotMatch(out, /LEAKED|TAMPERED/, out);
    assert.match(out, /^entries:0 /m, out);
  } finally {
    await reg.close();
  }
});
