/**
 * `NODE_EXTRA_CA_CERTS` in a confined tool: without the network the CA files under
 * `/etc/ssl` are not shown, so the variable is unset inside (Node.js would otherwise print
 * "Ignoring extra certs ..." to stderr at every start-up of every confined Node tool);
 * with the network they are shown read-only and the variable stays as the author set it.
 * Run warm (the second call of a tool takes a spare) and cold, which must agree.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { findExecutable } from "../../lib/sandbox/detect.ts";
import { processEnv } from "../../lib/process/env.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { printSkip, skipReason } from "./_corpus.ts";

/** A CA bundle the host has, shown inside only with the network (`/etc/ssl`). */
const CA = "/etc/ssl/certs/ca-certificates.crt";

function tool(name: string, network: boolean): string {
  return `
[artifacts.app.views.agent_tools.${name}]
description = "Report the CA variable and start Node."
protocol = "plain"
command = "sh"
args = ["-c", "node -e 0 2>&1; env | grep ^NODE_EXTRA_CA_CERTS= || echo unset"]
sandbox = "read"
network = ${network}
`;
}

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"
${tool("offline", false)}${tool("online", true)}`;

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

/** Why this test cannot run here, if it cannot. */
function cannotRun(): string | undefined {
  const node = findExecutable("node", Deno.env.get("PATH"));
  if (node === undefined || !/^\/(usr\/)?bin\//.test(node)) {
    return "no node under /usr/bin or /bin (a confined tool would not see it)";
  }
  if (!existsSync(CA)) return `no ${CA} on this host`;
  return skipReason();
}

Deno.test("confined without the network, NODE_EXTRA_CA_CERTS is unset and Node does not warn", async () => {
  const skip = cannotRun();
  if (skip) return printSkip("NODE_EXTRA_CA_CERTS in a sandbox", skip);
  await using ws = await tempWorkspace(TOML, { "app/README.md": "# app\n" });
  let stderr = "";
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review", {
    env: { ...processEnv(), NODE_EXTRA_CA_CERTS: CA },
    stderr: (c) => void (stderr += new TextDecoder().decode(c)),
  });
  try {
    for (let i = 0; i < 2; i++) { // cold, then (when a spare is ready) warm
      const off = text(await reg.call("offline_app", {}));
      assert.equal(off.trim(), "unset", off);
      const on = text(await reg.call("online_app", {}));
      assert.equal(on.trim(), `NODE_EXTRA_CA_CERTS=${CA}`, on);
    }
    assert.doesNotMatch(stderr, /extra certs/i);
  } finally {
    await reg.close();
  }
});
