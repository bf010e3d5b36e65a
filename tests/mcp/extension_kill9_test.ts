/**
 * `kill -9` of toolhost while an unconfined extension server works on a call: the server,
 * which does not exit on end-of-file while its call runs, and the grandchild it started
 * end with toolhost — the dead man's switch (lib/process/dead_man.ts) covers every
 * extension group for its whole life, not only sandboxes. No sweep runs in this test.
 */

import assert from "node:assert/strict";
import { dirname } from "node:path";
import { tempWorkspace } from "../helpers/workspace.ts";
import { markerGone, markerProcesses } from "../sandbox/_corpus.ts";
import { alive, extensionToml, fixtureServerArgs, readPid, REPO, waitFor } from "./_helpers.ts";

function toml(mark: string, root: string): string {
  return `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
extensions = ["fx"]
${
    extensionToml("fx", {
      command: "deno",
      // The mark: an argument the server ignores, so its processes can be found.
      args: [...fixtureServerArgs(), mark],
      timeout_ms: 600000,
      env: { FIXTURE_PIDFILE: `${root}/grandchild.pid` },
    })
  }`;
}

const CHILD = new URL("../fixtures/mcp/extension_call_child.ts", import.meta.url).pathname;

Deno.test("kill -9 of toolhost mid-call: an unconfined extension server ends with it", async () => {
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  await using ws = await tempWorkspace("", { "app/README.md": "# app\n" });
  Deno.writeTextFileSync(`${ws.root}/toolhost.toml`, toml(mark, ws.root));
  let grandchild = 0;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${REPO}/deno.json`, CHILD, ws.root, "app/review", "sleep_fx"]
      .concat(['{"ms":600000}']),
    env: { PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin` },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    // Wait for the condition (the call is under way), not for a clock.
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("calling")) {
      const { value, done } = await reader.read();
      assert.equal(done, false, "the child ended before its call");
      out += value;
    }
    reader.releaseLock();
    assert.ok(markerProcesses(mark).length > 0, "the server runs");
    grandchild = await readPid(`${ws.root}/grandchild.pid`);
    // The server has the call (its answer would take 600 s) once it reads it: a moment.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    child.kill("SIGKILL");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
  assert.deepEqual(await markerGone(mark), [], "the extension server outlived a kill -9");
  assert.equal(await waitFor(() => !alive(grandchild)), true, "its grandchild outlived it");
});
