/**
 * Every pin test again with Deno's fast paths installed, as cli.ts installs them
 * (`installDenoHost` of cli.ts: `Deno.statSync` sizes opened files, `Deno.readDirSync` lists folders):
 * the same digests, and every security case (swaps mid-walk, FIFOs, budgets, descriptors)
 * failing or passing as with `node:fs`. Each test file has its own module instances, so this
 * changes nothing for the files it imports when they run on their own.
 */

import assert from "node:assert/strict";
import { installDenoHost } from "../../cli.ts";
import { hostStatInUse } from "../../lib/pins/host_fs.ts";
import "./pin_budget_test.ts";
import "./pin_dir_test.ts";
import "./pin_path_test.ts";
import "./tree_pin_deep_test.ts";
import "./tree_pin_test.ts";
import "./tree_pin_thread_test.ts";

installDenoHost();

Deno.test("Deno's fast paths are installed for every test above", () => {
  assert.ok(hostStatInUse());
});
