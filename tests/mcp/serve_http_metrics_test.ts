/**
 * `GET /metrics`: Prometheus text by prom-client from a registry of the server's own,
 * behind the token, labelled by listed tool names and outcomes only.
 */
import assert from "node:assert/strict";
import { register } from "prom-client";
import { tempWorkspace } from "../helpers/workspace.ts";
import { ServeMetrics } from "../../lib/mcp/http_metrics.ts";
import { E2E_FILES, e2eToml } from "./_helpers.ts";
import { client, serveHttp } from "./_http_serve.ts";
import { parseExposition, value } from "./_exposition.ts";

Deno.test("serve over HTTP: /metrics counts calls by tool and outcome, sessions; token; no values", async () => {
  await using tmp = await tempWorkspace("", E2E_FILES);
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, e2eToml(tmp.root));
  const served = await serveHttp(tmp.root, ["--token-env", "E2E_TOKEN"], {
    E2E_TOKEN: "t0k-0123456789abcdef",
  });
  const auth = { authorization: "Bearer t0k-0123456789abcdef" };
  const metricsUrl = served.url.replace(/\/mcp$/, "/metrics");
  try {
    const refused = await fetch(metricsUrl);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    const a = await client(served.url, auth);
    await a.c.listTools(); // the names a client was shown become labels
    for (let i = 0; i < 2; i++) {
      await a.c.callTool({ name: "info_app", arguments: { name: "SECRETARG" } });
    }
    await a.c.callTool({ name: "info_app", arguments: { name: "x".repeat(50) } }); // invalid
    await a.c.callTool({ name: "count_app", arguments: {} });
    await a.c.callTool({ name: "nope_SECRETNAME", arguments: {} });

    const r = await fetch(metricsUrl, { headers: auth });
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    const samples = parseExposition(text);
    const calls = "toolhost_tool_calls_total";
    assert.equal(value(samples, calls, { tool: "info_app", outcome: "ok" }), 2);
    assert.equal(value(samples, calls, { tool: "info_app", outcome: "error" }), 1);
    assert.equal(value(samples, calls, { tool: "count_app", outcome: "ok" }), 1);
    assert.equal(value(samples, calls, { tool: "unknown", outcome: "error" }), 1);
    const hist = "toolhost_tool_call_duration_seconds_count";
    assert.equal(value(samples, hist, { tool: "info_app" }), 3);
    assert.equal(value(samples, "toolhost_mcp_sessions"), 1);
    assert.equal(value(samples, "toolhost_tool_sessions_running"), 1);
    assert.equal(value(samples, "toolhost_cleanup_failures_total"), 0);
    assert.doesNotMatch(text, /SECRET/);
    assert.ok(!text.includes(tmp.root), "no workspace path in the metrics");

    await a.transport.terminateSession();
    await a.c.close();
    const after = parseExposition(await (await fetch(metricsUrl, { headers: auth })).text());
    assert.equal(value(after, "toolhost_mcp_sessions"), 0);
    assert.equal(value(after, "toolhost_tool_sessions_running"), 0);
  } finally {
    await served.stop();
  }
});

Deno.test("ServeMetrics uses its own registry, not prom-client's global default", async () => {
  const before = (await register.getMetricsAsJSON()).length;
  const m = new ServeMetrics({ liveSessions: () => 3 });
  const other = new ServeMetrics({ liveSessions: () => 5 });
  assert.equal((await register.getMetricsAsJSON()).length, before);
  assert.match(await m.expose(), /^toolhost_mcp_sessions 3$/m);
  assert.match(await other.expose(), /^toolhost_mcp_sessions 5$/m);
});
