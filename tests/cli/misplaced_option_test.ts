/**
 * A command option written before the command: exit 2 with the command line to copy, no trace.
 */

import assert from "node:assert/strict";
import { fixture, runCapture } from "../helpers/cli.ts";
import { misplacedOptionHint } from "../../lib/cli/misplaced_option.ts";

const SCOPED = fixture("scoped");

Deno.test("--repo before the command: says where it goes, and the rewritten line works", async () => {
  const r = await runCapture(["--repo", SCOPED, "tools", "list", "app/review"]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  const line = `toolhost tools list app/review --repo ${SCOPED}`;
  assert.equal(r.err, `error: --repo goes after the command: ${line}\n(see \`toolhost --help\`)\n`);
  const again = await runCapture(["tools", "list", "app/review", "--repo", SCOPED]);
  assert.equal(again.code, 0, again.err);
});

Deno.test("several leading options, `=` forms and quoting", () => {
  assert.equal(
    misplacedOptionHint(["--repo=my dir", "--json", "tools", "check"]),
    "error: --repo, --json go after the command: toolhost tools check '--repo=my dir' --json\n",
  );
  assert.equal(
    misplacedOptionHint(["--eval", "app/review", "serve"]),
    "error: --eval goes after the command: toolhost serve --eval app/review\n",
  );
});

Deno.test("no hint without a command after the options, or for other options", () => {
  assert.equal(misplacedOptionHint(["--repo"]), undefined);
  assert.equal(misplacedOptionHint(["--repo", "x"]), undefined);
  assert.equal(misplacedOptionHint(["--repo", "x", "--bogus"]), undefined);
  assert.equal(misplacedOptionHint(["--bogus", "tools", "list"]), undefined);
  assert.equal(misplacedOptionHint(["tools", "list", "--repo", "x"]), undefined);
});
