/**
 * `docs/haproxy.cfg` in front of three `serve --http` replicas on loopback: every request
 * of an MCP session reaches the replica that created it (each session's tool-session
 * counter counts up without a gap), and sessions spread over the replicas.
 * SKIPs, saying why, when the Debian package haproxy is missing.
 */
import assert from "node:assert/strict";
import { tempWorkspace } from "../helpers/workspace.ts";
import { E2E_FILES, e2eToml } from "./_helpers.ts";
import { client, type Served, serveHttp } from "./_http_serve.ts";
import { haproxyMissing, startHaproxy } from "./_haproxy.ts";

const missing = haproxyMissing();
if (missing) console.log(`SKIP haproxy affinity test: ${missing}`);

Deno.test({
  name: "HAProxy (docs/haproxy.cfg) keeps every MCP session on the replica that created it",
  ignore: missing !== undefined,
  async fn() {
    await using tmp = await tempWorkspace("", E2E_FILES);
    Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
    const replicas: Served[] = [];
    try {
      for (let i = 0; i < 3; i++) replicas.push(await serveHttp(tmp.root));
      const ports = replicas.map((r) => Number(new URL(r.url).port));
      const lb = await startHaproxy(tmp.root, ports);
      try {
        const clients = [];
        for (let i = 0; i < 6; i++) clients.push(await client(lb.url));
        for (let round = 1; round <= 3; round++) {
          for (const { c } of clients) {
            const r = await c.callTool({ name: "count_app", arguments: {} });
            assert.deepEqual(r.structuredContent, { count: round }, `round ${round}`);
          }
        }
        // Each replica holds the sessions it created; together all six, over ≥ 2 replicas.
        const held = await Promise.all(replicas.map((r) => liveSessions(r.url)));
        assert.equal(held.reduce((a, b) => a + b, 0), 6, `${held}`);
        assert.ok(held.filter((n) => n > 0).length >= 2, `round robin spread: ${held}`);
        for (const { c } of clients) await c.close();
      } finally {
        await lb.stop();
      }
    } finally {
      for (const r of replicas) assert.equal((await r.stop()).code, 0, r.stderr()); // drained
    }
  },
});

async function liveSessions(url: string): Promise<number> {
  const text = await (await fetch(url.replace(/\/mcp$/, "/metrics"))).text();
  const m = /^toolhost_mcp_sessions (\d+)$/m.exec(text);
  assert.ok(m, text);
  return Number(m[1]);
}
