/**
 * An extension server's tool listing is data out of a tool process too: a listing whose
 * description, input schema or name holds a protected value never reaches a caller —
 * `Registry.list()`, the MCP tool source (`serve`'s `tools/list`) or the host's log.
 */

import assert from "node:assert/strict";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { buildLock } from "../../lib/lock_build/build_lock.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, fixtureServerArgs } from "../mcp/_helpers.ts";
import { assertTextHasNoPart, VALUE } from "./_helpers.ts";

// The server learns the value as any tool can (a provider file it reads, say); here
// through its own environment.
const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
  `audience = "agent"\nextensions = ["fx"]\n\n[plugins]\nenable = ["protected-values"]\n\n` +
  `[plugins.protected-values]\nprovider = "env"\nenv = { deploy = "DEPLOY_TOKEN" }\n` +
  extensionToml("fx", {
    command: "deno",
    args: fixtureServerArgs(),
    env: { FIXTURE_LISTED_VALUE: VALUE },
  });

const ENV = () => ({
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: Deno.env.get("HOME") ?? "/",
  DEPLOY_TOKEN: VALUE,
});

Deno.test("an extension's listing holding a protected value is never published", async () => {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  try {
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, TOML);
    const logs: string[] = [];
    const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
      stateDir: `${tmp.root}/.state`,
      env: ENV(),
      extensions: { log: (l) => logs.push(l) },
    });
    const source = evalToolSource(reg);
    try {
      const listed = await source.list();
      const names = listed.map((t) => t.name);
      assert.ok(names.includes("echo_fx"), names.join(", ") + logs.join("\n"));
      assertTextHasNoPart([JSON.stringify(listed)], VALUE, "tools/list");
      assertTextHasNoPart([JSON.stringify(reg.list())], VALUE, "Registry.list()");
      assertTextHasNoPart(logs, VALUE, "extension log");
      for (const n of ["desc_fx", "cut_fx", "ctl_fx", "schema_fx", "dflt_fx"]) {
        const r = await source.call(n, {});
        assertTextHasNoPart([JSON.stringify(r)], VALUE, `calling ${n}`);
      }
    } finally {
      await source.close();
    }
  } finally {
    await tmp.cleanup();
  }
});

Deno.test("toolhost lock never writes an extension listing holding a protected value", async () => {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  try {
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, TOML);
    const lock = await buildLock(await loadWorkspace(tmp.root), {
      stateDir: `${tmp.root}/.state`,
      env: ENV(),
    });
    const text = JSON.stringify(lock);
    assert.match(text, /"echo"/);
    assertTextHasNoPart([text], VALUE, "toolhost.lock");
  } finally {
    await tmp.cleanup();
  }
});
