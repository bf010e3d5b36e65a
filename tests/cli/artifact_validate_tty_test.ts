/**
 * `toolhost artifact validate` without a file at a terminal says it is reading standard
 * input and how to end it, instead of seeming to hang. Runs the CLI under `script`
 * (util-linux), which gives it a terminal; skipped where `script` is missing.
 */

import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/cli.ts";

const HINT = "reading the envelope from standard input";

function hasScript(): boolean {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("artifact validate at a terminal says it reads standard input", async () => {
  if (!hasScript()) return console.log("SKIP: util-linux `script` is not installed");
  const cli = `'${Deno.execPath()}' run -A '${REPO_ROOT}/cli.ts' artifact validate`;
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
  // Without the hint the CLI would wait for input for ever: end its input after a minute
  // (far longer than the hint takes), so a missing hint fails the test instead of hanging.
  const guard = setTimeout(() => stdin.close().catch(() => {}), 60_000);
  // Until the hint shows or the CLI ends (then it never will: the test fails below).
  while (!seen.includes(HINT)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  clearTimeout(guard);
  await stdin.close().catch(() => {}); // end of input: the CLI reads an empty envelope, ends
  await reader.cancel();
  await child.status;
  assert.match(seen, /reading the envelope from standard input; end it with Ctrl-D/);
});
