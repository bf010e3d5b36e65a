/**
 * DESIGN: `tools call` runs "in a fresh set of lazy sessions that are stopped and cleaned
 * before the command exits, also on SIGINT/SIGTERM" — and SIGHUP (a closed terminal).
 * A call in flight is cancelled: its whole process group is gone and no call directory
 * is left, and — only after that cleanup — the command exits 128 + the signal's number.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { tempWorkspace } from "../helpers/workspace.ts";
import { cliCommand } from "../helpers/cli.ts";
import { alive, E2E_FILES, e2eToml, groupMembers, readPid, waitFor } from "../mcp/_helpers.ts";

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  Deno.test(`tools call: ${sig} cancels the call, ends its group, leaves no directory`, async () => {
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const state = `${tmp.root}/.state`;
    const child = cliCommand(
      [
        "tools",
        "call",
        "slow_app",
        "--eval",
        "app/review",
        "--repo",
        tmp.root,
        "--state-dir",
        state,
      ],
      { env: { TEST_PIDDIR: tmp.root } },
    ).spawn();
    const leader = await readPid(`${tmp.root}/slow.pid`);
    assert.equal(alive(leader), true);
    child.kill(sig);
    const out = await child.output();
    assert.equal(out.code, EXIT_CODES[sig], new TextDecoder().decode(out.stderr));
    assert.match(new TextDecoder().decode(out.stderr), new RegExp(`interrupted by ${sig}`));
    assert.equal(await waitFor(() => groupMembers(leader).length === 0), true);
    assert.equal(alive(leader), false);
    const calls = `${state}/calls`;
    assert.deepEqual(existsSync(calls) ? readdirSync(calls) : [], []);
    assert.doesNotMatch(new TextDecoder().decode(out.stderr), /^\s+at /m);
  });
}
