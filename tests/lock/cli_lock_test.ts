/**
 * The CLI side of the lock: `toolhost lock` writes it, `lock --check` and `tools check`
 * show drift, `tools call` refuses a drifted tool (exit 1) and `--no-lock` runs it with a
 * loud warning on stderr.
 */

import assert from "node:assert/strict";
import { runCapture } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const TOOL = `#!/bin/sh
cat >/dev/null
printf '{"content":[{"type":"text","text":"stats"}]}\\n'
`;

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.stats]
description = "Stats."
protocol = "json"
command = "tools/stats.sh"
args = []
execution_paths = ["app/tools/stats.sh"]

[artifacts.app.views.agent_tools.read]
builtin = "read"
`;

Deno.test("toolhost lock / lock --check / tools check / tools call / --no-lock", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/tools/stats.sh": { text: TOOL, mode: 0o755 },
  });
  const repo = ["--repo", tmp.root];
  const typo = await runCapture(["lock", "--eval", "app/reveiw", ...repo]);
  assert.equal(typo.code, 2);
  assert.equal(
    typo.err,
    "toolhost: no eval `app/reveiw` in this workspace (did you mean `app/review`?); " +
      "evals: app/review [UNKNOWN_EVAL]\n",
  );
  const absent = await runCapture(["lock", "--check", ...repo]);
  assert.equal(absent.code, 1);
  assert.match(absent.out, /eval `app\/review`: not in toolhost.lock/);

  const wrote = await runCapture(["lock", ...repo]);
  assert.equal(wrote.code, 0, wrote.err);
  assert.equal(wrote.out, "wrote toolhost.lock: 1 eval(s), 4 tool(s), 0 extension(s)\n");
  assert.equal((await runCapture(["lock", "--check", ...repo])).code, 0);
  const clean = JSON.parse(
    (await runCapture(["tools", "check", "--json", "app/review", ...repo])).out,
  );
  assert.deepEqual(clean.lock, { status: "verified", drift: [], blocked: [] });

  await Deno.writeTextFile(`${tmp.root}/app/tools/stats.sh`, TOOL + "# edited\n");
  const check = await runCapture(["lock", "--check", "--json", ...repo]);
  assert.equal(check.code, 1);
  assert.deepEqual(JSON.parse(check.out), {
    upToDate: false,
    drift: [
      "app/review: tool `stats_app`: execution path `app/tools/stats.sh` changed",
      "app/review: tool `stats_app`: program `command` `app/tools/stats.sh` changed",
    ],
  });
  const report = await runCapture(["tools", "check", "--json", "app/review", ...repo]);
  assert.equal(report.code, 1);
  const body = JSON.parse(report.out);
  assert.equal(body.ready, false);
  assert.deepEqual(body.lock.blocked, ["stats_app"]);
  const table = await runCapture(["tools", "check", "app/review", ...repo]);
  assert.equal(table.code, 1);
  assert.match(
    table.out,
    /\n {2}toolhost\.lock: drift \(2 difference\(s\); 1 tool\(s\) blocked: stats_app\)\n/,
  );
  // The blocked tool's own row says so, with the key path and the fix.
  assert.match(table.out, /\n {2}stats_app +not ready\n/);
  assert.match(table.out, /lock: it differs from what toolhost\.lock pins, so a call is refused\n/);
  assert.match(table.out, /fix: if the change is yours, review it/);

  const call = ["tools", "call", "stats_app", "--eval", "app/review", ...repo];
  const refused = await runCapture(call);
  assert.equal(refused.code, 1);
  assert.match(JSON.parse(refused.out).content[0].text, /^LOCK_MISMATCH/);
  const read = await runCapture([
    "tools",
    "call",
    "read_app",
    "--eval",
    "app/review",
    "--args",
    '{"path":"README.md"}',
    ...repo,
  ]);
  assert.equal(read.code, 0);

  const dev = await runCapture([...call, "--no-lock"]);
  assert.equal(dev.code, 0);
  assert.match(dev.err, /WARNING: lock verification is OFF/);
  const unchecked = await runCapture([
    "tools",
    "check",
    "--json",
    "app/review",
    "--no-lock",
    ...repo,
  ]);
  assert.equal(JSON.parse(unchecked.out).lock, undefined);
  assert.match(unchecked.err, /WARNING/);

  assert.equal((await runCapture(["lock", "--eval", "app/review", ...repo])).code, 0);
  assert.equal((await runCapture(call)).code, 0);
  assert.equal((await runCapture(["lock", "--eval", "app/nope", ...repo])).code, 2);
});

Deno.test("tools check: a tool declared after `toolhost lock` is named new, with the fix to add it", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/tools/stats.sh": { text: TOOL, mode: 0o755 },
  });
  const repo = ["--repo", tmp.root];
  assert.equal((await runCapture(["lock", ...repo])).code, 0);
  const toml = `${tmp.root}/toolhost.toml`;
  Deno.writeTextFileSync(toml, `\n[artifacts.app.views.agent_tools.list]\nbuiltin = "list"\n`, {
    append: true,
  });
  Deno.writeTextFileSync(toml, Deno.readTextFileSync(toml).replace("Stats.", "Counts."));
  const table = await runCapture(["tools", "check", "app/review", ...repo]);
  assert.equal(table.code, 1);
  const rowOf = (name: string) => table.out.split(/\n(?= {2}\S)/).find((r) => r.includes(name))!;
  assert.match(rowOf("list_app"), /lock: it is not in toolhost\.lock yet, so a call is refused/);
  assert.match(rowOf("list_app"), /fix: review the new declaration, then run `toolhost lock`/);
  // A changed tool keeps the wording that says it changed.
  assert.match(rowOf("stats_app"), /lock: it differs from what toolhost\.lock pins/);
});
