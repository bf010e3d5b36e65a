/**
 * The non-root path: toolhost run by an unprivileged user (CI runs as root, so the test
 * switches to the user `toolhost-unpriv` with `setpriv`). A confined call made there
 * holds the core guarantees: the attack corpus is refused or contained (reads outside
 * the policy, the host's loopback, signals to toolhost, writes outside) while the same
 * tool unconfined does reach what that user can; processes that left the group end with
 * the call; a timeout warns every process inside with SIGTERM (toolhost, not root,
 * signals them across the user namespace it owns) — and a `/proc` scan for the marker
 * finds 0 processes after each call. SKIPs with the reason when not root or when user
 * namespaces are unavailable to an unprivileged user.
 */

import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { REPO_ROOT } from "../helpers/cli.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { ATTACK_SH, attackCases, CONTAIN_SH, markerGone, printSkip } from "./_corpus.ts";
import { chownTo, type Stage, stageUnprivileged, unprivilegedSkipReason } from "./_unprivileged.ts";

const GRACE_SH = readFileSync(`${REPO_ROOT}/tests/fixtures/sandbox/grace.sh`, "utf8");

function manifest(sandbox: string, hostDir: string, timeoutMs: number): string {
  const schema = (...keys: string[]) =>
    `{ type = "object", properties = { ${
      keys.map((k) => `${k} = { type = "string" }`).join(", ")
    } }, required = [${keys.map((k) => `"${k}"`).join(", ")}] }`;
  return `[artifacts.app]
path = "app"

[artifacts.other]
path = "other"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.attack]
description = "Try escapes."
protocol = "plain"
command = "tools/attack.sh"
args = ["{case}"]
input_schema = ${schema("case")}
sandbox = "${sandbox}"

[artifacts.app.views.agent_tools.contain]
description = "Try to outlive the call."
protocol = "plain"
command = "tools/contain.sh"
args = ["{case}", "{mark}"]
input_schema = ${schema("case", "mark")}
sandbox = "${sandbox}"

[artifacts.app.views.agent_tools.grace]
description = "Trap SIGTERM."
protocol = "plain"
command = "tools/grace.sh"
args = ["exit", "${hostDir}", "{mark}"]
input_schema = ${schema("mark")}
sandbox = "${sandbox}"
${sandbox === "host" ? "" : `sandbox_write = ["${hostDir}"]`}
timeout_ms = ${timeoutMs}
`;
}

const FILES = {
  "app/README.md": "# app\n",
  "app/tools/attack.sh": { text: ATTACK_SH, mode: 0o755 },
  "app/tools/contain.sh": { text: CONTAIN_SH, mode: 0o755 },
  "app/tools/grace.sh": { text: GRACE_SH, mode: 0o755 },
  "other/README.md": "# other\n",
};

interface Range extends AsyncDisposable {
  env: Record<string, string>;
  mark: string;
  hostDir: string;
  seen: { tcp: number; udp: number };
  call(tool: string, args: Record<string, string>): Promise<string>;
}

/** A workspace, secrets the user may read unconfined, and a host loopback listener. */
async function openRange(
  stage: Stage,
  sandbox: string,
  timeoutMs = 600_000,
): Promise<Range> {
  const mark = `THMARK${crypto.randomUUID().replaceAll("-", "")}`;
  const hostDir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "toolhost_unpriv_host_" }));
  const ws = await tempWorkspace(manifest(sandbox, hostDir, timeoutMs), FILES);
  Deno.writeTextFileSync(`${ws.root}/other/secret.txt`, `${mark}\n`);
  Deno.writeTextFileSync(`${hostDir}/secret.txt`, `${mark}\n`);
  const home = stage.home;
  Deno.mkdirSync(`${home}/.ssh`, { recursive: true });
  Deno.writeTextFileSync(`${home}/.ssh/id_rsa`, `-----BEGIN KEY ${mark}\n`);
  await chownTo(stage.user, ws.root);
  await chownTo(stage.user, hostDir);
  await chownTo(stage.user, home);
  const seen = { tcp: 0, udp: 0 };
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  (async () => {
    for await (const conn of listener) {
      seen.tcp++;
      await conn.write(new TextEncoder().encode("banner\n")).catch(() => {});
      conn.close();
    }
  })().catch(() => {});
  const udp = createSocket("udp4");
  udp.on("message", () => seen.udp++);
  await new Promise<void>((resolve) => udp.bind(port, "127.0.0.1", resolve));
  const env = {
    ATTACK_HOME: home,
    ATTACK_OTHER: `${ws.root}/other`,
    ATTACK_OWN: `${ws.root}/app`,
    ATTACK_STATE: `${home}/.local/state`,
    ATTACK_HOSTTMP: hostDir,
    ATTACK_PORT: String(port),
    ATTACK_MARK: mark,
  };
  return {
    env,
    mark,
    hostDir,
    seen,
    async call(tool, args) {
      const r = await stage.cli([
        "tools",
        "call",
        `${tool}_app`,
        "--eval",
        "app/review",
        "--repo",
        ws.root,
        "--args",
        JSON.stringify(args),
      ], env);
      assert.notEqual(r.out, "", `no result (exit ${r.code}): ${r.err}`);
      const res = JSON.parse(r.out) as { content: { text?: string }[] };
      return res.content.map((b) => b.text ?? "").join("");
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      udp.close();
      await ws.cleanup();
      await Deno.remove(hostDir, { recursive: true });
      await Deno.remove(`${home}/.ssh`, { recursive: true });
    },
  };
}

const skip = await unprivilegedSkipReason();

Deno.test("unprivileged: a confined call holds the core guarantees", async (t) => {
  if (skip) return printSkip("unprivileged user", skip);
  await using stage = await stageUnprivileged();

  await t.step("reads outside the policy, the network and toolhost are out of reach", async () => {
    await using r = await openRange(stage, "read");
    const out = await r.call("attack", { case: "all" });
    const lines = out.split("\n").filter((l) => /^(CONTAINED|ESCAPED) /.test(l));
    assert.deepEqual(lines.filter((l) => l.startsWith("ESCAPED")), [], out);
    assert.equal(lines.length, attackCases().length, out);
    assert.deepEqual(r.seen, { tcp: 0, udp: 0 }, "the host's loopback listener was reached");
    for (const dir of [stage.home, r.hostDir, r.env.ATTACK_OTHER, r.env.ATTACK_OWN]) {
      assert.equal(readdirSync(dir).includes("pwned"), false, `a file was written in ${dir}`);
    }
    assert.deepEqual(await markerGone(r.mark), []);
  });

  await t.step("control: the same tool unconfined reaches all of it as this user", async () => {
    await using r = await openRange(stage, "host");
    const cases = [
      "read_ssh_key",
      "read_other_artifact",
      "read_host_tmp",
      "read_toolhost_environ",
      "signal_toolhost",
      "tcp_host_loopback",
    ];
    for (const c of cases) {
      assert.match(await r.call("attack", { case: c }), new RegExp(`^ESCAPED ${c}$`, "m"));
    }
  });

  for (const c of ["daemon", "hopper"]) {
    await t.step(`a ${c} ends with its call`, async () => {
      await using r = await openRange(stage, "none");
      assert.match(await r.call("contain", { case: c, mark: r.mark }), /started/);
      assert.deepEqual(await markerGone(r.mark), [], "processes outlived the call");
    });
  }

  await t.step("a timeout warns every process inside with SIGTERM, then ends it", async () => {
    // As in grace_test.ts: the deadline must find the traps set, else try a longer one.
    for (const timeoutMs of [4000, 16_000, 64_000]) {
      await using r = await openRange(stage, "none", timeoutMs);
      const t0 = Date.now();
      assert.match(await r.call("grace", { mark: r.mark }), /timed out/);
      assert.deepEqual(await markerGone(r.mark), [], "processes outlived the call");
      const ready = `${r.hostDir}/ready`;
      if (!existsSync(ready) || statSync(ready).mtimeMs + 50 >= t0 + timeoutMs) continue;
      const files = readdirSync(r.hostDir);
      assert.ok(files.includes("main_term"), `the tool got no SIGTERM: ${files}`);
      assert.ok(files.includes("child_term"), `a setsid child got no SIGTERM: ${files}`);
      return;
    }
    assert.fail("the tool never got ready before its deadline");
  });
});
