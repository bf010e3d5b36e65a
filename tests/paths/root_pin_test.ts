/**
 * A built-in's declaring folder is opened once per call (the pre-call target check pins
 * it, the sandbox takes it): the pin is refused wherever `Sandbox.open` with `exact` would
 * refuse the folder, only a sandbox for that very path takes it, and no descriptor outlives
 * a call, taken or not.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { pinRoot, releasePin } from "../../lib/paths/root_pin.ts";
import { procfsAvailable, Sandbox } from "../../lib/paths/sandbox.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";

const PROCFS = procfsAvailable();

/**
 * Descriptors of this process open on something under `root`. Only those: `deno test
 * --parallel` runs other test files in this same process, and their descriptors come and go.
 */
function openFds(root: string): number {
  const under = `${fs.realpathSync(root)}/`;
  let n = 0;
  for (const name of fs.readdirSync("/proc/self/fd")) {
    try {
      if (`${fs.readlinkSync(`/proc/self/fd/${name}`)}/`.startsWith(under)) n++;
    } catch { /* closed meanwhile */ }
  }
  return n;
}

function isOpen(fd: number): boolean {
  try {
    fs.fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "a pin is refused wherever an exact sandbox root is, and taken only for its path",
  ignore: !PROCFS,
  fn() {
    const dir = fs.realpathSync(Deno.makeTempDirSync());
    try {
      fs.mkdirSync(join(dir, "app"));
      fs.mkdirSync(join(dir, "other"));
      fs.symlinkSync(join(dir, "other"), join(dir, "link"));
      fs.symlinkSync(dir, join(dir, "up"));
      fs.writeFileSync(join(dir, "file"), "x");
      assert.equal(pinRoot(join(dir, "link")), undefined, "a symlinked folder was pinned");
      assert.equal(pinRoot(join(dir, "up", "app")), undefined, "a path through a link was pinned");
      assert.equal(pinRoot(join(dir, "file")), undefined, "a file was pinned");
      assert.equal(pinRoot(join(dir, "missing")), undefined);

      const pin = pinRoot(join(dir, "app"))!;
      assert.ok(pin && isOpen(pin.fd));
      const fd = pin.fd;
      // A sandbox for another path opens its own root and leaves the pin alone.
      const other = Sandbox.open(join(dir, "other"), ".", { exact: true, pinned: pin });
      assert.notEqual(other.root.fd, fd);
      other.close();
      assert.equal(pin.fd, fd);
      // The sandbox for its path takes it (and closes it).
      const box = Sandbox.open(join(dir, "app"), ".", { exact: true, pinned: pin });
      assert.equal(box.root.fd, fd);
      assert.equal(box.real, join(dir, "app"));
      assert.equal(pin.fd, -1);
      releasePin(pin); // a no-op once taken
      assert.ok(isOpen(fd));
      box.close();
      assert.equal(isOpen(fd), false);

      const unused = pinRoot(join(dir, "app"))!;
      const ufd = unused.fd;
      releasePin(unused);
      assert.equal(isOpen(ufd), false);
      assert.equal(unused.fd, -1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
});

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.bench]
audience = "agent"

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.app.views.agent_tools.graph]
builtin = "graph"
args = []
`;

Deno.test({
  name: "no descriptor outlives a built-in call, whether its sandbox took the pin or not",
  ignore: !PROCFS,
  async fn() {
    const dir = fs.realpathSync(Deno.makeTempDirSync());
    try {
      fs.mkdirSync(join(dir, "app"));
      fs.writeFileSync(join(dir, "toolhost.toml"), TOML);
      fs.writeFileSync(join(dir, "app", "a.md"), "alpha\nbeta\n");
      const reg = await Registry.open(await loadWorkspace(dir), "app/bench", {
        stateDir: join(dir, ".state"),
      });
      try {
        const read = await reg.call("read_app", { path: "a.md" }); // warm (lazy modules)
        assert.equal(read.isError, false);
        const before = openFds(dir);
        for (let i = 0; i < 20; i++) {
          const ok = await reg.call("read_app", { path: "a.md" });
          assert.equal(ok.isError, false);
          assert.ok(JSON.stringify(ok).includes("beta"));
          // Refused before a sandbox: the path escapes, or names nothing.
          assert.equal((await reg.call("read_app", { path: "../toolhost.toml" })).isError, true);
          assert.equal((await reg.call("read_app", { path: "missing.md" })).isError, true);
          // A built-in without a sandbox never takes the pin.
          assert.equal((await reg.call("graph_app", {})).isError, false);
        }
        // Concurrent calls each take their own pin.
        const all = await Promise.all(
          Array.from({ length: 8 }, () => reg.call("read_app", { path: "a.md" })),
        );
        assert.ok(all.every((r) => !r.isError));
        assert.equal(openFds(dir), before, "a descriptor outlived its call");
      } finally {
        await reg.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
});
