/**
 * A bounded run of the scale-out load test (issue 20; the full one is
 * `bench/scale_out_bench.ts`): MCP clients through HAProxy (`docs/haproxy.cfg`) across
 * three `serve --http` replicas, each making calls cycling a built-in, a json command tool
 * and a session-bound tool, while one replica is SIGTERMed (drain) and another SIGKILLed.
 * Every client finishes (those of the lost replicas initialize again), no call returns an
 * error result, every session-bound result counts on from the session's previous one (the
 * balancer kept the session on its replica), the drained replica exits 0 (every open request finished), and after
 * `toolhost sweep` no process of the run is left. Sizes: `SCALE_TEST_CLIENTS` (24) ×
 * `SCALE_TEST_CALLS` (9). No timing is asserted: the clients' cap (10 min) only bounds a
 * hung run. SKIPs, saying why, when the Debian package haproxy is missing.
 */
import assert from "node:assert/strict";
import { tempWorkspace } from "../helpers/workspace.ts";
import { haproxyMissing } from "./_haproxy.ts";
import { runScaleOut, SCALE_FILES, SCALE_TOML, sweepAndScan } from "../../bench/scale_out_run.ts";

const missing = haproxyMissing();
if (missing) console.log(`SKIP scale-out test: ${missing}`);

const CLIENTS = Number(Deno.env.get("SCALE_TEST_CLIENTS") ?? 24);
const CALLS = Number(Deno.env.get("SCALE_TEST_CALLS") ?? 9);

Deno.test({
  name: "scale-out: clients through HAProxy finish across a drained and a killed replica, 0 left",
  ignore: missing !== undefined,
  async fn() {
    await using tmp = await tempWorkspace(SCALE_TOML, SCALE_FILES);
    const r = await runScaleOut({
      root: tmp.root,
      replicas: 3,
      clients: CLIENTS,
      calls: CALLS,
      kill: true,
      maxMs: 600_000,
    });
    const left = await sweepAndScan(tmp.root, 3);
    const seen = JSON.stringify({
      ...r,
      latencies: undefined,
      byTool: undefined,
      inits: undefined,
      lossKinds: [...r.lossKinds],
    });
    assert.equal(r.killed, true, seen);
    assert.equal(r.unfinished, 0, seen);
    assert.equal(r.calls, CLIENTS * CALLS, seen);
    assert.equal(r.errorResults, 0, seen);
    assert.equal(r.countGaps, 0, seen);
    // The sessions of the killed replica (round robin gives it a third) were lost and
    // initialized again: more initializations than clients.
    assert.ok(r.sessionsLost > 0 && r.inits.length > CLIENTS, seen);
    assert.equal(r.exits[0], 0, seen); // drained, cleanup confirmed
    assert.equal(r.exits[2], 0, seen);
    assert.deepEqual(left, [], `processes left: ${left.join(" ")}`);
  },
});
