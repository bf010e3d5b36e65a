/**
 * The lock pins the confinement policy in effect: after `toolhost lock`, loosening a
 * tool's policy (its own keys, or the workspace default it inherits) blocks the tool
 * with `LOCK_MISMATCH`.
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOOL = `
[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.hello]
description = "Say hello."
protocol = "plain"
command = "sh"
args = ["-c", "echo hello"]
`;

const LOOSENINGS: [string, string, string][] = [
  ["own mode read → write", 'sandbox = "read"', 'sandbox = "write"'],
  ["own mode none → host", 'sandbox = "none"', 'sandbox = "host"'],
  ["network off → on", 'sandbox = "read"', 'sandbox = "read"\nnetwork = true'],
  ["an extra writable path", 'sandbox = "read"', 'sandbox = "read"\nsandbox_write = ["/var/tmp"]'],
];

for (const [what, before, after] of LOOSENINGS) {
  Deno.test(`lock: a loosened policy (${what}) is LOCK_MISMATCH`, async () => {
    await using ws = await tempWorkspace(`${TOOL}${before}\n`, { "app/README.md": "# app\n" });
    const repo = ["--repo", ws.root];
    assert.equal((await runCapture(["lock", ...repo])).code, 0);
    await Deno.writeTextFile(`${ws.root}/toolhost.toml`, `${TOOL}${after}\n`);
    const call = await runCapture(["tools", "call", "hello_app", "--eval", "app/review", ...repo]);
    assert.equal(call.code, 1, call.out);
    assert.match(JSON.parse(call.out).content[0].text, /^LOCK_MISMATCH/);
  });
}

Deno.test("lock: loosening the workspace default a tool inherits is LOCK_MISMATCH", async () => {
  const files = { "app/README.md": "# app\n" };
  await using ws = await tempWorkspace(`[sandbox]\ndefault = "none"\n${TOOL}`, files);
  const repo = ["--repo", ws.root];
  assert.equal((await runCapture(["lock", ...repo])).code, 0);
  assert.equal((await runCapture(["lock", "--check", ...repo])).code, 0);
  await Deno.writeTextFile(`${ws.root}/toolhost.toml`, `[sandbox]\ndefault = "host"\n${TOOL}`);
  const check = await runCapture(["lock", "--check", ...repo]);
  assert.equal(check.code, 1);
  const call = await runCapture(["tools", "call", "hello_app", "--eval", "app/review", ...repo]);
  assert.equal(call.code, 1, call.out);
  assert.match(JSON.parse(call.out).content[0].text, /^LOCK_MISMATCH/);
});
