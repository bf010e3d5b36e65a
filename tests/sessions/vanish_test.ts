/**
 * Two sweeps (or a sweep and a folder's own owner) on one state directory: a stale folder
 * that vanishes between the steps of cleaning it is already cleaned, not a failure; one
 * replaced by something else is still refused. The race is injected deterministically
 * through the sweep's own seams (classify, terminate, remove), each of which runs between
 * two steps of the real code.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcessRecord } from "../../lib/process/proc_identity.ts";
import { removeTree } from "../../lib/process/call_dirs.ts";
import { cleanStaleFolder, type StaleFolder } from "../../lib/sessions/stale_folder.ts";
import { type FolderSweep, sweepFolder } from "../../lib/sessions/folder_sweep.ts";
import {
  createSessionRoot,
  currentOwner,
  removeSessionRoot,
  sessionsRoot,
} from "../../lib/sessions/session_dir.ts";
import { sweepSessions } from "../../lib/sessions/sweep.ts";
import { admitLine, DEAD_OWNER, forgeFolder, running, spawnVictim, withState } from "./_forge.ts";

const NAME = "0123456789abcdef01234567";

function tally() {
  return { refused: 0, failed: 0, active: 0, problems: [] as string[] };
}

/** A stale call folder with a dead owner and an empty journal, and its StaleFolder. */
function staleCall(state: string, remove = removeTree): { path: string; folder: StaleFolder } {
  const path = forgeFolder(state, "calls", NAME, []);
  const folder = { parent: join(state, "calls"), name: NAME, journal: "journal.jsonl", remove };
  return { path, folder };
}

/** A terminator that runs `between` (the race) once, then reports the group gone. */
function racingTerminator(between: () => void) {
  let ran = false;
  return (_r: ProcessRecord) => {
    if (!ran) between();
    ran = true;
    return Promise.resolve({ confirmed: true, signalled: false });
  };
}

/**
 * Run `body` with a journal line that a sweep verifies as its own: a real group toolhost
 * started. The terminator is always injected, so nothing is signalled by the sweep; the
 * group is ended afterwards.
 */
async function withVerifiedLine(body: (line: string) => Promise<void>): Promise<void> {
  const victim = await spawnVictim();
  try {
    await body(admitLine({ ...victim.record }));
  } finally {
    await victim.terminate({ graceMs: 0 });
  }
}

Deno.test("a folder removed by another sweep before it was classified is not a failure", async () => {
  await withState(async (state) => {
    const { path } = staleCall(state);
    const sweep: FolderSweep = {
      root: join(state, "calls"),
      kind: "calls",
      names: /^[0-9a-f]{24}$/,
      label: "call",
      journal: "journal.jsonl",
      remove: removeTree,
      classify: (p) => {
        rmSync(p, { recursive: true, force: true }); // the other sweep won
        return Promise.resolve("stale");
      },
    };
    const t = tally();
    const removed = await sweepFolder(sweep, { graceMs: 0 }, t);
    assert.equal(removed, 0);
    assert.deepEqual(t, tally());
    assert.equal(existsSync(path), false);
  });
});

Deno.test("a folder removed while its groups were being ended is already cleaned", async () => {
  await withState((state) =>
    withVerifiedLine(async (line) => {
      const { path, folder } = staleCall(state);
      writeFileSync(join(path, "journal.jsonl"), `${line}\n`);
      const terminate = racingTerminator(() => rmSync(path, { recursive: true, force: true }));
      const r = await cleanStaleFolder(folder, { graceMs: 0, terminate });
      assert.equal(r.removed, false);
      assert.equal(r.vanished, true);
      assert.equal(r.problem, undefined);
    })
  );
});

Deno.test("a folder whose removal failed because another sweep removed it is already cleaned", async () => {
  await withState(async (state) => {
    const { path, folder } = staleCall(state, async (p) => {
      await removeTree(p);
      throw new Error("ENOENT in the middle of a concurrent removal");
    });
    const r = await cleanStaleFolder(folder, { graceMs: 0 });
    assert.equal(r.vanished, true);
    assert.equal(r.problem, undefined);
    assert.equal(existsSync(path), false);
  });
});

Deno.test("a folder moved away (its entry gone from the parent) is already cleaned", async () => {
  await withState((state) =>
    withVerifiedLine(async (line) => {
      const { path, folder } = staleCall(state);
      writeFileSync(join(path, "journal.jsonl"), `${line}\n`);
      const elsewhere = join(state, "moved");
      const terminate = racingTerminator(() => renameSync(path, elsewhere));
      const r = await cleanStaleFolder(folder, { graceMs: 0, terminate });
      assert.equal(r.vanished, true);
      assert.equal(r.problem, undefined);
      assert.ok(existsSync(elsewhere), "what was moved away is not ours to touch any more");
    })
  );
});

for (
  const [what, replace] of [
    ["a symlink", (p: string, state: string) => {
      mkdirSync(join(state, "decoy"));
      symlinkSync(join(state, "decoy"), p);
    }],
    ["a file", (p: string) => writeFileSync(p, "not a folder")],
  ] as const
) {
  Deno.test(`a folder replaced by ${what} mid-clean is still refused and reported`, async () => {
    await withState((state) =>
      withVerifiedLine(async (line) => {
        const { path, folder } = staleCall(state);
        writeFileSync(join(path, "journal.jsonl"), `${line}\n`);
        const terminate = racingTerminator(() => {
          rmSync(path, { recursive: true, force: true });
          replace(path, state);
        });
        const r = await cleanStaleFolder(folder, { graceMs: 0, terminate });
        assert.equal(r.removed, false);
        assert.notEqual(r.vanished, true);
        assert.match(r.problem ?? "", /not a directory inside the state directory/);
        assert.ok(existsSync(path), "the replacement was left alone");
      })
    );
  });
}

Deno.test("a vanished folder is neither a failure nor a refusal in the sweep report", async () => {
  await withState((state) =>
    withVerifiedLine(async (line) => {
      const { path } = staleCall(state);
      writeFileSync(join(path, "journal.jsonl"), `${line}\n`);
      const terminate = racingTerminator(() => rmSync(path, { recursive: true, force: true }));
      const report = await sweepSessions(state, { graceMs: 0, terminate });
      assert.equal(report.failed, 0, report.problems.join("\n"));
      assert.equal(report.calls, 0);
    })
  );
});

Deno.test("no step of a live owner's own root removal looks stale to a sweep", async () => {
  await withState(async (state) => {
    const root = await createSessionRoot(state, currentOwner());
    // The records in the order removeSessionRoot drops them (checked by the next test).
    for (const f of ["journal.jsonl", "owner.json", "lease"]) {
      rmSync(join(root.root, f), { force: true });
      const report = await sweepSessions(state, { graceMs: 0 });
      assert.equal(report.swept, 0, `swept after ${f} was removed`);
      assert.equal(report.failed, 0);
      assert.ok(existsSync(root.root));
    }
    await removeSessionRoot(root.root);
  });
});

Deno.test("a session root's own removal drops its owner record before its lease", async () => {
  // A live owner's root without a lease is stale (a released lease: the owner gave up);
  // a young root without an owner record is left alone. So the owner record goes first.
  // A lease that cannot be removed (a folder in its place) stops the removal right there.
  await withState(async (state) => {
    const root = await createSessionRoot(state, currentOwner());
    rmSync(join(root.root, "lease"));
    mkdirSync(join(root.root, "lease", "stuck"), { recursive: true });
    await assert.rejects(removeSessionRoot(root.root));
    const left = `${root.root}.trash`;
    assert.equal(existsSync(root.root), false, "the root was renamed away first");
    assert.equal(existsSync(join(left, "journal.jsonl")), false);
    assert.equal(existsSync(join(left, "owner.json")), false, "owner record removed last");
    rmSync(left, { recursive: true });
  });
});

Deno.test("removing a session root that another sweep already removed succeeds", async () => {
  await withState(async (state) => {
    const root = await createSessionRoot(state, { ...DEAD_OWNER });
    rmSync(root.root, { recursive: true, force: true });
    await removeSessionRoot(root.root);
    assert.equal(existsSync(sessionsRoot(state)), true);
  });
});

Deno.test("a `.trash` folder is removed at once and nothing recorded in it is signalled", async () => {
  await withState((state) =>
    withVerifiedLine(async (line) => {
      // Young and ownerless, as a toolhost killed halfway through removing it leaves it.
      const call = forgeFolder(state, "calls", `${NAME}.trash`, [line]);
      const root = forgeFolder(state, "sessions", "0123456789abcdef.trash", [line]);
      const victim = JSON.parse(line).pid as number;
      for (const p of [call, root]) rmSync(join(p, "owner.json"));
      const report = await sweepSessions(state, { graceMs: 0 });
      assert.equal(report.failed, 0, report.problems.join("\n"));
      assert.equal(report.refused, 0);
      assert.equal(existsSync(call), false);
      assert.equal(existsSync(root), false);
      assert.ok(running(victim), "a record in a trash folder was acted on");
    })
  );
});

Deno.test("a sweep that dies while removing a stale folder leaves only trash", async () => {
  await withState(async (state) => {
    const { path, folder } = staleCall(state, (p) => {
      rmSync(join(p, "owner.json")); // the removal got this far, then the toolhost died
      return Promise.reject(new Error("killed"));
    });
    const r = await cleanStaleFolder(folder, { graceMs: 0 });
    assert.equal(r.removed, false);
    assert.equal(existsSync(path), false, "the folder was renamed away before removal");
    assert.ok(existsSync(`${path}.trash`));
    // The next sweep does not wait for the ownerless leftover to age.
    const report = await sweepSessions(state, { graceMs: 0 });
    assert.equal(report.failed, 0, report.problems.join("\n"));
    assert.equal(existsSync(`${path}.trash`), false);
  });
});
