/**
 * `toolhost demo` says what `tools check` and `tools call` say about toolhost.lock: a tool
 * that differs from the lock is NOT READY with the fix, not "ready" and then refused with
 * LOCK_MISMATCH when called.
 *
 * @module
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCapture } from "../helpers/cli.ts";
import { withWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.tools]
path = "tools"

[artifacts.tools.evals.agent]
audience = "agent"

[artifacts.tools.views.agent_tools.hello]
description = "Say hello."
protocol = "plain"
command = "./hello.sh"
args = []
execution_paths = ["tools/hello.sh"]
`;

const FILES = { "tools/hello.sh": { text: "#!/bin/sh\necho hello\n", mode: 0o755 } };

Deno.test("demo marks a tool that differs from toolhost.lock NOT READY, with the fix", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    const state = ["--repo", root, "--state-dir", join(root, ".state")];
    assert.equal((await runCapture(["lock", ...state])).code, 0);
    const locked = await runCapture(["demo", ...state]);
    assert.equal(locked.code, 0, locked.out + locked.err);
    assert.match(locked.out, /^ {2}ready +hello_tools /m);
    assert.match(locked.out, /Everything is ready\./);

    writeFileSync(join(root, "tools/hello.sh"), "#!/bin/sh\necho changed\n");
    const call = await runCapture([
      "tools",
      "call",
      "hello_tools",
      "--eval",
      "tools/agent",
      ...state,
    ]);
    assert.match(call.out, /LOCK_MISMATCH/);
    const drifted = await runCapture(["demo", ...state]);
    assert.equal(drifted.code, 1, drifted.out);
    assert.match(drifted.out, /^ {2}NOT READY hello_tools /m);
    assert.match(
      drifted.out,
      /✗ lock: differs from toolhost\.lock, so calls are refused \(LOCK_MISMATCH\); review with `toolhost lock --check`, then run `toolhost lock`/,
    );
    assert.match(drifted.out, /Some tools are not ready/);
  });
});
