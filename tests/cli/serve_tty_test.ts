/**
 * `toolhost serve` on stdio at a terminal says that it talks MCP with a client and what a
 * person should do instead, rather than seeming to hang after its "serving" line. Runs the
 * CLI under `script` (util-linux), which gives it a terminal; skipped where `script` is
 * missing.
 */

import assert from "node:assert/strict";
import { EXAMPLES, REPO_ROOT } from "../helpers/cli.ts";

function hasScript(): boolean {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("serve at a terminal says it waits for an MCP client, and what to run instead", async () => {
  if (!hasScript()) return console.log("SKIP: util-linux `script` is not installed");
  const stateDir = await Deno.makeTempDir({ prefix: "toolhost-serve-tty-" });
  const cli = `'${Deno.execPath()}' run -A '${REPO_ROOT}/cli.ts' serve --eval app/review ` +
    `--repo '${EXAMPLES}' --state-dir '${stateDir}'`;
  const child = new Deno.Command("script", {
    args: ["-qec", cli, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const decoder = new TextDecoder();
  let seen = "";
  const reader = child.stdout.getReader();
  const stdin = child.stdin.getWriter();
  try {
    // Until the server is up (or has ended: then the test fails below).
    while (!seen.includes("serving eval app/review on stdio")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    await stdin.close(); // end of input: the server ends, as when its client goes away
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    assert.equal((await child.status).code, 0, seen);
  } finally {
    await stdin.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await Deno.remove(stateDir, { recursive: true });
  }
  const text = seen.replace(/\r?\n/g, " ");
  assert.match(text, /standard input is a terminal, but serve speaks MCP/);
  assert.match(text, /`toolhost serve --eval app\/review --repo [^`]*examples` in your client/);
  assert.match(text, /`toolhost tools call TOOL --eval app\/review`; Ctrl-C stops this server/);
});
