import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { withWorkspace } from "../helpers/workspace.ts";
import { BASE } from "./_helpers.ts";

const TOML = `${BASE}
[plugins]
enable = ["audit-log", "policy"]

[plugins.policy]
[[plugins.policy.rules]]
effect = "deny"
tools = ["shell_*"]
match = [{ pointer = "/command", pattern = "rm\\\\s+-rf" }]
reason = "no recursive deletes"
`;

Deno.test("toolhost policy check shows the decision; exit 0 allow, 1 deny, 2 bad args", async () => {
  await withWorkspace(TOML, { "app/README.md": "x" }, async (root) => {
    const deny = await runCapture([
      "policy",
      "check",
      "shell_app",
      "--repo",
      root,
      "--args",
      '{"command":"rm -rf /"}',
    ]);
    assert.equal(deny.code, 1);
    assert.deepEqual(JSON.parse(deny.out), {
      effect: "deny",
      rule: 1,
      reason: "no recursive deletes",
    });
    const allow = await runCapture([
      "policy",
      "check",
      "shell_app",
      "--repo",
      root,
      "--args",
      '{"command":"ls"}',
    ]);
    assert.deepEqual([allow.code, JSON.parse(allow.out)], [0, { effect: "allow", rule: null }]);
    const array = await runCapture(["policy", "check", "x", "--repo", root, "--args", "[1]"]);
    assert.equal(array.code, 2);
    assert.equal(
      array.err,
      `toolhost: --args must be a JSON object, e.g. --args '{"command":"ls"}'\n`,
    );
  });
});

Deno.test("toolhost audit tail prints the last lines written by tools call", async () => {
  await withWorkspace(TOML, { "app/README.md": "x" }, async (root) => {
    for (const cmd of ["echo 1", "rm -rf nothing", "echo 3"]) {
      await runCapture([
        "tools",
        "call",
        "shell_app",
        "--repo",
        root,
        "--eval",
        "app/review",
        "--args",
        JSON.stringify({ command: cmd }),
      ]);
    }
    const r = await runCapture(["audit", "tail", "-n", "2", "--repo", root]);
    assert.equal(r.code, 0, r.err);
    const recs = r.out.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(recs.map((x) => [x.tool, x.outcome]), [["shell_app", "denied"], [
      "shell_app",
      "ok",
    ]]);
    const zero = await runCapture(["audit", "tail", "-n", "0", "--repo", root]);
    assert.equal(zero.code, 2);
    assert.equal(
      zero.err,
      "toolhost: -n/--lines must be an integer from 1 to 10000, e.g. -n 50 (got 0)\n",
    );
    assert.equal((await runCapture(["audit", "tail", "-n", "10001", "--repo", root])).code, 2);
    assert.equal((await runCapture(["audit", "tail", "-n", "10000", "--repo", root])).code, 0);
  });
});

Deno.test("audit tail and policy check say how to enable their plugin when it is not", async () => {
  await withWorkspace(BASE, { "app/README.md": "x" }, async (root) => {
    const tail = await runCapture(["audit", "tail", "--repo", root]);
    assert.equal(tail.code, 1);
    assert.equal(tail.out, "");
    assert.match(
      tail.err,
      /^toolhost: the audit-log plugin is not enabled.*`enable = \["audit-log"\]` under `\[plugins\]`/,
    );
    const policy = await runCapture(["policy", "check", "x", "--repo", root]);
    assert.equal(policy.code, 1);
    assert.match(
      policy.err,
      /^toolhost: the policy plugin is not enabled.*`enable = \["policy"\]` under `\[plugins\]`/,
    );
  });
});

Deno.test("audit tail --help gives the default once", async () => {
  const r = await runCapture(["audit", "tail", "--help"]);
  assert.equal(r.code, 0);
  assert.equal(r.out.match(/default/g)?.length, 3, r.out); // -n, --repo, --state-dir
});
