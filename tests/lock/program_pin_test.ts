/**
 * Issue 16: a command found on PATH is pinned by its resolved path and SHA-256, and so is
 * a script's `#!` interpreter and what `/usr/bin/env X` (also `env -S`) resolves X to. A
 * swapped file or an earlier PATH entry later is drift: the tool is refused, not run.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { parseShebang, pinProgram } from "../../lib/pins/program_pin.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.greet]
description = "Greet."
protocol = "plain"
command = "greettool"
args = []

[artifacts.app.views.agent_tools.script]
description = "Script."
protocol = "plain"
command = "tools/run.sh"
args = []
`;

const GREET = "#!/bin/sh\necho greeted\n";
const INTERP = '#!/bin/sh\nexec /bin/sh "$@"\n';

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function setup() {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run.sh": { text: "#!/usr/bin/env -S myinterp -e\necho ran\n", mode: 0o755 },
    "bin0/.keep": "",
    "bin1/greettool": { text: GREET, mode: 0o755 },
    "bin1/myinterp": { text: INTERP, mode: 0o755 },
  });
  const env = { PATH: `${tmp.root}/bin0:${tmp.root}/bin1:/usr/bin:/bin` };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const open = () => Registry.open(ws, "app/review", { stateDir, env });
  return { tmp, env, open };
}

Deno.test("the lock pins PATH programs and env interpreters; unchanged they run", async () => {
  const { tmp, open } = await setup();
  try {
    const reg = await open();
    try {
      const greet = reg.lock!.locked!.tools.greet_app.programs;
      assert.equal(greet.command.path, "bin1/greettool"); // inside the workspace: relative
      const script = reg.lock!.locked!.tools.script_app.programs;
      assert.equal(script.command.path, "app/tools/run.sh");
      assert.equal(script["interpreter program"].path, "bin1/myinterp");
      assert.equal(script.interpreter.path, "/usr/bin/env");
      assert.equal(reg.lock!.drift.length, 0);
      assert.equal(text(await reg.call("greet_app", {})), "greeted\n");
      assert.equal(text(await reg.call("script_app", {})), "ran\n");
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a swapped PATH program is drift: the tool is refused and never runs", async () => {
  const { tmp, open } = await setup();
  try {
    await Deno.writeTextFile(`${tmp.root}/bin1/greettool`, "#!/bin/sh\necho pwned\n");
    const reg = await open();
    try {
      const r = await reg.call("greet_app", {});
      assert.match(text(r), /^LOCK_MISMATCH: the tool `greet_app`/);
      assert.match(text(r), /program `command` `.*bin1\/greettool` changed/);
      assert.doesNotMatch(text(r), /pwned/);
      assert.deepEqual(reg.lock!.blocked(), ["greet_app"]);
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("an earlier PATH entry with the same name is drift", async () => {
  const { tmp, open } = await setup();
  try {
    await Deno.writeTextFile(`${tmp.root}/bin0/greettool`, GREET, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/bin0/greettool`, 0o755);
    const reg = await open();
    try {
      // Same bytes, another place: still not the reviewed program.
      assert.match(text(await reg.call("greet_app", {})), /program `command` .*bin0\/greettool/);
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("a swapped interpreter reached through `env -S` is drift", async () => {
  const { tmp, open } = await setup();
  try {
    await Deno.writeTextFile(`${tmp.root}/bin1/myinterp`, INTERP + "# swapped\n");
    const reg = await open();
    try {
      const r = await reg.call("script_app", {});
      assert.match(text(r), /program `interpreter program` `.*bin1\/myinterp` changed/);
      assert.equal(text(await reg.call("greet_app", {})), "greeted\n");
    } finally {
      await reg.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("shebang lines: env, env -S with options and assignments, direct interpreters", () => {
  assert.deepEqual(parseShebang("#!/usr/bin/env node\n"), {
    interpreter: "/usr/bin/env",
    program: "node",
  });
  // env's own assignments are the environment its program is looked up with.
  assert.deepEqual(parseShebang("#!/usr/bin/env -S -u HOME A=1 deno run -A\n"), {
    interpreter: "/usr/bin/env",
    program: "deno",
    env: { A: "1" },
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -Spython3 -u\n"), {
    interpreter: "/usr/bin/env",
    program: "python3",
  });
  assert.deepEqual(parseShebang("#! /bin/sh -e\n"), { interpreter: "/bin/sh" });
  assert.equal(parseShebang("echo hi\n"), undefined);
});

Deno.test("a program that is not found has no pin; its appearing later is drift", async () => {
  const root = Deno.realPathSync(await Deno.makeTempDir());
  try {
    const ctx = { root, cwd: root, env: { PATH: root } };
    assert.deepEqual(Object.keys(await pinProgram("nothere", ctx)), []);
    await Deno.writeTextFile(`${root}/nothere`, "#!/bin/sh\n", { mode: 0o755 });
    await Deno.chmod(`${root}/nothere`, 0o755);
    const pins = await pinProgram("nothere", ctx);
    assert.equal(pins.command.path, "nothere");
    assert.equal(pins.interpreter.path, "/bin/sh");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
