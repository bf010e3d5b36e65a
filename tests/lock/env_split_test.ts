/**
 * `#!/usr/bin/env -S …` is read as GNU env reads it: its own `PATH=…` assignment, `-i`,
 * `-u PATH` and `-C DIR` decide where the program is found, `${VAR}` is expanded, quotes
 * and `\_` group words. The lock pins the program env really runs, and one appearing
 * where env's own PATH (or directory) would find it first is drift, never run unpinned.
 */

import assert from "node:assert/strict";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { writeLockFile } from "../../lib/lock/lock_file.ts";
import { parseShebang } from "../../lib/pins/program_pin.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.run]
description = "Run."
protocol = "plain"
command = "tools/run"
args = []
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const HELPER = { text: "#!/bin/sh\necho helper\n", mode: 0o755 };
const PWNED = "#!/bin/sh\necho pwned\n";

async function attack(shebang: string, plant: string) {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run": { text: `${shebang}\n`, mode: 0o755 },
    "app/bin/.keep": "",
    "app/sub/bin/.keep": "",
    "bin1/helperprog": HELPER,
  });
  await using _ = tmp;
  const env = { PATH: `${tmp.root}/bin1:/usr/bin:/bin`, BIN: "bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    assert.equal(text(await reg.call("run_app", {})), "helper\n");
    await Deno.writeTextFile(`${tmp.root}/${plant}`, PWNED, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/${plant}`, 0o755);
    const r = await reg.call("run_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
}

Deno.test("env -S's own PATH= assignment is where the program is looked up", async () => {
  await attack("#!/usr/bin/env -S PATH=bin:${PATH} helperprog", "app/bin/helperprog");
});

Deno.test("env -S's ${VAR} is expanded from the tool's environment", async () => {
  await attack("#!/usr/bin/env -S PATH=${BIN}:${PATH} helperprog", "app/bin/helperprog");
});

Deno.test("env -C DIR moves where a relative PATH entry is searched", async () => {
  await attack("#!/usr/bin/env -S -C sub PATH=bin:${PATH} helperprog", "app/sub/bin/helperprog");
});

Deno.test("a long env option abbreviated is the option (--split-str=)", async () => {
  await attack("#!/usr/bin/env --split-str=PATH=bin:${PATH} helperprog", "app/bin/helperprog");
});

Deno.test("parseShebang: env -S as GNU env splits it", () => {
  const env = { PATH: "/usr/bin", HOME: "/h" };
  assert.deepEqual(parseShebang("#!/usr/bin/env -S PATH=bin:${PATH} x\n", env), {
    interpreter: "/usr/bin/env",
    program: "x",
    env: { PATH: "bin:/usr/bin", HOME: "/h" },
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S '${HOME}/my prog' -a\n", env), {
    interpreter: "/usr/bin/env",
    program: "${HOME}/my prog",
  });
  assert.deepEqual(parseShebang('#!/usr/bin/env -S "${HOME}/my prog"\n', env), {
    interpreter: "/usr/bin/env",
    program: "/h/my prog",
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S my\\_prog\n", env), {
    interpreter: "/usr/bin/env",
    program: "my",
  });
  assert.deepEqual(parseShebang('#!/usr/bin/env -S "my\\_prog"\n', env), {
    interpreter: "/usr/bin/env",
    program: "my prog",
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S -i x\n", env), {
    interpreter: "/usr/bin/env",
    program: "x",
    env: {},
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S -uPATH -C /d x\n", env), {
    interpreter: "/usr/bin/env",
    program: "x",
    env: { HOME: "/h" },
    chdir: "/d",
  });
  // After an assignment, options end: `-x` is the program.
  assert.deepEqual(parseShebang("#!/usr/bin/env -S A=1 -x prog\n", env), {
    interpreter: "/usr/bin/env",
    program: "-x",
    env: { PATH: "/usr/bin", HOME: "/h", A: "1" },
  });
  // getopt_long takes an unambiguous prefix of a long option.
  assert.deepEqual(parseShebang("#!/usr/bin/env --split-str=PATH=bin x\n", env), {
    interpreter: "/usr/bin/env",
    program: "x",
    env: { PATH: "bin", HOME: "/h" },
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S --ch /d --ignore-e x\n", env), {
    interpreter: "/usr/bin/env",
    program: "x",
    env: {},
    chdir: "/d",
  });
  // What env refuses runs nothing: an ambiguous option too.
  assert.deepEqual(parseShebang("#!/usr/bin/env -S --i x\n", env), {
    interpreter: "/usr/bin/env",
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S $HOME/x\n", env), {
    interpreter: "/usr/bin/env",
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S 'x\n", env), { interpreter: "/usr/bin/env" });
});

Deno.test("a #! line past the kernel's 255 bytes is cut where the kernel cuts it", async () => {
  // The kernel reads 256 bytes and ends an unterminated line at byte 255: env is given
  // `… helperprog`, not `… helperprogXYZ` as the file reads.
  const prefix = "#!/usr/bin/env -S A=";
  const line = `${prefix}${"x".repeat(255 - prefix.length - " helperprog".length)} helperprog`;
  assert.equal(line.length, 255);
  const tmp = await tempWorkspace(TOML, {
    "app/tools/run": { text: `${line}XYZ\n`, mode: 0o755 },
    "bin0/.keep": "",
  });
  await using _ = tmp;
  const env = { PATH: `${tmp.root}/bin0:/usr/bin:/bin` };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    await Deno.writeTextFile(`${tmp.root}/bin0/helperprog`, PWNED, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/bin0/helperprog`, 0o755);
    const r = await reg.call("run_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
  } finally {
    await reg.close();
  }
});
