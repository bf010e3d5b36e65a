/**
 * A bwrap argv that binds or runs the Deno binary itself (a `#!/usr/bin/env deno`
 * interpreter, a confined `command = "deno"`) must reach bwrap unchanged: Deno's
 * `node:child_process` rewrites what follows an argument equal to its own path.
 *
 * @module
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { sandboxCommand } from "../../lib/sandbox/bwrap_argv.ts";

Deno.test("a bwrap argv naming the runtime's own binary reaches the program unchanged", () => {
  const self = process.execPath;
  const { args } = sandboxCommand("/usr/bin/bwrap", {
    policy: { mode: "none", network: false, read: [], write: [] },
    readable: [self],
    writable: [],
    hidden: [],
  }, { command: self, args: ["run", "x.ts"], cwd: "/tmp", writable: [] });
  assert.ok(!args.includes(self), "the runtime's path is passed as is");
  // What a spawned program receives is exactly the argv built: nothing inserted.
  const echoed = spawnSync("/usr/bin/printf", ["%s\\n", ...args], { encoding: "utf8" });
  assert.deepEqual(echoed.stdout.split("\n").slice(0, -1), args);
  const tail = args.slice(args.indexOf("--") + 1);
  assert.deepEqual(tail, [`/${self}`, "run", "x.ts"]);
});
