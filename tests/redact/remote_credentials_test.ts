/**
 * The credentials toolhost itself sends to a remote extension — the bearer token and the
 * headers taken from the environment (`bearer_token_env_var`, `env_http_headers`) — are
 * secrets of the author's environment: a server that reflects them (compromised, or
 * echoing its request for debugging) never hands them to the model, in any form.
 */

import assert from "node:assert/strict";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { startRemoteServer } from "../fixtures/mcp/remote_server.ts";
import { extensionToml } from "../mcp/_helpers.ts";
import { assertNoPart } from "./_helpers.ts";

const TOKEN = "QZXK-PWNBRTVY-HJMLDSGCF-XQWE";
const KEY = "KEYV-MNBVCXZL-KJHGFDSAP-OIUY";

Deno.test("a remote extension reflecting its credentials hands out neither", async () => {
  const server = await startRemoteServer({ token: TOKEN });
  const toml = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\n` +
    `audience = "agent"\nextensions = ["rx"]\n` +
    extensionToml("rx", {
      url: server.url,
      timeout_ms: 30000,
      bearer_token_env_var: "RX_TOKEN",
      env_http_headers: { "X-Api-Key": "RX_KEY" },
    });
  const tmp = await tempWorkspace(toml, { "app/README.md": "# app\n" });
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
    env: { RX_TOKEN: TOKEN, RX_KEY: KEY },
  });
  const source = evalToolSource(reg);
  try {
    const r = await source.call("whoami_rx", {});
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.match(JSON.stringify(r), /authorization=/);
    assertNoPart(r, TOKEN, "bearer token");
    assertNoPart(r, KEY, "env header");
  } finally {
    await source.close();
    await server.close();
    await tmp.cleanup();
  }
});
