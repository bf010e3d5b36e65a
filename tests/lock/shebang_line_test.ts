/**
 * The lock reads a `#!` line as the kernel does: the rest of the line after the
 * interpreter is ONE argument, so `#!/usr/bin/env helperprog -u` makes `env` run a program
 * named `helperprog -u`, and a trailing carriage return is part of the name
 * (`#!tools/interp\r` opens `tools/interp\r`). A file by such a name appearing later —
 * where the tool's PATH or working directory finds it — is drift, never run unpinned.
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

[artifacts.app.views.agent_tools.spaced]
description = "Spaced env program."
protocol = "plain"
command = "tools/spaced"
args = []

[artifacts.app.views.agent_tools.crlf]
description = "CRLF interpreter line."
protocol = "plain"
command = "tools/crlf"
args = []
`;

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
const PWNED = { text: "#!/bin/sh\necho pwned\n", mode: 0o755 };

Deno.test("parseShebang: the kernel's one argument, spaces and tabs trimmed, CR kept", () => {
  assert.deepEqual(parseShebang("#!/usr/bin/env helperprog -u\n"), {
    interpreter: "/usr/bin/env",
    program: "helperprog -u",
  });
  assert.deepEqual(parseShebang("#! /usr/bin/env  node \t\n"), {
    interpreter: "/usr/bin/env",
    program: "node",
  });
  assert.deepEqual(parseShebang("#!tools/interp\r\n"), { interpreter: "tools/interp\r" });
  assert.deepEqual(parseShebang("#!/usr/bin/env -S deno run -A\n"), {
    interpreter: "/usr/bin/env",
    program: "deno",
  });
  assert.deepEqual(parseShebang("#!/usr/bin/env A=1 prog\n"), { interpreter: "/usr/bin/env" });
});

Deno.test("a program named as env sees the whole shebang argument is watched", async () => {
  const tmp = await tempWorkspace(TOML, {
    "app/tools/spaced": { text: "#!/usr/bin/env helperprog -u\n", mode: 0o755 },
    "app/tools/crlf": { text: "#!tools/interp\r\necho x\r\n", mode: 0o755 },
    "app/tools/interp": { text: "#!/bin/sh\necho interp\n", mode: 0o755 },
    "app/bin/.keep": "",
  });
  await using _ = tmp;
  const env = { PATH: "bin:/usr/bin:/bin" };
  const stateDir = `${tmp.root}/.state`;
  const ws = await loadWorkspace(tmp.root);
  await writeLockFile(ws, await buildLock(ws, { stateDir, env }));
  const reg = await Registry.open(ws, "app/review", { stateDir, env });
  try {
    await Deno.writeTextFile(`${tmp.root}/app/bin/helperprog -u`, PWNED.text, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/app/bin/helperprog -u`, 0o755);
    const r = await reg.call("spaced_app", {});
    assert.match(text(r), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(r), /pwned/);
    await Deno.writeTextFile(`${tmp.root}/app/tools/interp\r`, PWNED.text, { mode: 0o755 });
    await Deno.chmod(`${tmp.root}/app/tools/interp\r`, 0o755);
    const c = await reg.call("crlf_app", {});
    assert.match(text(c), /LOCK_MISMATCH/);
    assert.doesNotMatch(text(c), /pwned/);
  } finally {
    await reg.close();
  }
});
