/**
 * With protected values active, the artifact tools are no oracle: a spilled output that
 * held a protected value is redacted before it is written, so no window or search of it
 * returns any part of the value, and a prefix query matches nothing.
 *
 * @module
 */

import fs from "node:fs";
import path from "node:path";
import assert from "node:assert/strict";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { REDACTED } from "../../lib/redact/types.ts";
import type { ToolResult } from "../../lib/results/types.ts";

const SECRET = "supersecretvalue123";
const PARTS = ["supersec", "ecretval", "alue123", "persecretvalue"];

function workspace(): string {
  const root = fs.realpathSync(Deno.makeTempDirSync({ prefix: "toolhost-oracle-" }));
  const tool = (name: string, tail: string) => {
    const p = path.join(root, "app", "tools", `${name}.sh`);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, `#!/bin/sh\nhead -c 70000 /dev/zero | tr '\\0' 'x'\necho\n${tail}\n`);
    fs.chmodSync(p, 0o755);
    return `[artifacts.app.views.agent_tools.${name}]\ndescription = "Big."\n` +
      `protocol = "plain"\ncommand = "tools/${name}.sh"\nargs = []\noverflow = "artifact"\n`;
  };
  fs.writeFileSync(
    path.join(root, "toolhost.toml"),
    `[plugins]\nenable = ["protected-values"]\n\n[plugins.protected-values]\n` +
      `provider = "env"\nenv = { deploy-token = "DEPLOY_TOKEN" }\n\n` +
      `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n\n` +
      tool("big", `echo "TOKEN=${SECRET}"`) + "\n" + tool("plain", `echo "TOKEN=none"`),
  );
  return root;
}

function refOf(r: ToolResult): string {
  const m = JSON.stringify(r.content).match(/artifact \\"([^\\]+)\\"/);
  assert.ok(m, "no artifact reference in the spilled result");
  return m[1];
}

function assertNoPart(r: ToolResult): void {
  const t = JSON.stringify(r);
  for (const p of PARTS) assert.ok(!t.includes(p), "a part of the protected value leaked");
}

Deno.test("protected values: a spilled artifact holding one can't be windowed or searched", async () => {
  const root = workspace();
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DEPLOY_TOKEN: SECRET };
  const reg = await Registry.open(await loadWorkspace(root), "app/review", {
    env,
    stateDir: path.join(root, "state"),
  });
  try {
    const big = await reg.call("big_app", {});
    assertNoPart(big);
    const id = refOf(big);
    for (const [offset, max] of [[70005, 100], [70010, 6], [70013, 8], [0, 200_000]]) {
      const g = await reg.call("get_artifact_field", {
        artifact_ref: id,
        field: "content",
        offset,
        max_chars: max,
      });
      // Either refused or a window of the redacted text: never a part of the value.
      assertNoPart(g);
    }
    const whole = await reg.call("get_artifact_field", {
      artifact_ref: id,
      field: "content",
      offset: 69990,
      max_chars: 200,
    });
    assert.equal(whole.isError, false);
    assert.ok(JSON.stringify(whole).includes(REDACTED), "the value's place is not marked");
    for (const query of ["TOKEN=s", "TOKEN=super", "secretvalue", "xTOKEN"]) {
      const s = await reg.call("search_artifact_content", { query, context_chars: 40 });
      assert.ok(!JSON.stringify(s).includes('"matches":[{'), "search matched inside it");
      assertNoPart(s);
    }
    // An artifact without a protected value stays readable and searchable.
    const other = refOf(await reg.call("plain_app", {}));
    const g = await reg.call("get_artifact_field", {
      artifact_ref: other,
      field: "content",
      offset: 70001,
      max_chars: 10,
    });
    assert.equal(g.isError, false);
    assert.ok(JSON.stringify(g).includes("TOKEN=none"));
    const s = await reg.call("search_artifact_content", { query: "TOKEN=n", context_chars: 0 });
    assert.ok(JSON.stringify(s).includes('"matches":[{'));
  } finally {
    await reg.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
