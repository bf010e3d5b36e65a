/**
 * Real `deno run -A cli.ts` subprocesses: the process exit codes 0, 1 and 2.
 */

import assert from "node:assert/strict";
import { cliCommand, EXAMPLES, runProcess } from "../helpers/cli.ts";
import { BASE_FILES, BASE_TOML, withWorkspace } from "../helpers/workspace.ts";

Deno.test("process: tools check on examples exits 0 with JSON on stdout", async () => {
  const r = await runProcess(["tools", "check", "--json", "--repo", EXAMPLES, "app/review"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).ready, true);
});

Deno.test("process: a declaration error exits 1 without a stack trace", async () => {
  await withWorkspace(`${BASE_TOML}typo = 1\n`, BASE_FILES, async (root) => {
    const r = await runProcess(["tools", "check", "--json", "--repo", root]);
    assert.equal(r.code, 1);
    assert.match(r.err, /toolhost\.toml:6: artifacts\.app\.evals\.review\.typo: unknown key/);
    assert.ok(!/^\s+at /m.test(r.err), r.err);
  });
});

Deno.test("process: an invalid invocation exits 2", async () => {
  const r = await runProcess([
    "tools",
    "check",
    "--json",
    "--repo",
    EXAMPLES,
    "app/review",
    "--artifact",
    "app",
  ]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  assert.match(r.err, /cannot be combined/);
});

Deno.test("process: the workspace is found from the current directory", async () => {
  const r = await runProcess(["tools", "list", "--eval", "app/review"], {
    cwd: `${EXAMPLES}/app/src`,
  });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^app\/review \(agent\)/);
});

Deno.test("process: a reader that goes away early (| head) gets no EPIPE trace", async () => {
  const big = "x".repeat(120) + "\n";
  const toml = `${BASE_TOML}\n[artifacts.app.views.agent_tools.read]\nbuiltin = "read"\n`;
  await withWorkspace(toml, { ...BASE_FILES, "app/big.txt": big.repeat(3000) }, async (root) => {
    const child = cliCommand([
      "tools",
      "call",
      "read_app",
      "--repo",
      root,
      "--eval",
      "app/review",
      "--args",
      '{"path":"big.txt"}',
    ]).spawn();
    const reader = child.stdout.getReader();
    await reader.read(); // one chunk, then the reader is gone (like `head -c`)
    await reader.cancel();
    const [status, err] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
    ]);
    assert.equal(status.code, 0, err);
    assert.doesNotMatch(err, /EPIPE|^\s+at /m);
  });
});
