import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { BASE, ENV, open } from "./_helpers.ts";

const VALUE = "tok-Inherit-5150";

const DUMPS = `${BASE}
[artifacts.app.views.agent_tools.envdump]
description = "Writes its environment to tool_env.txt."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; env > tool_env.txt; printf '{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"ok\\"}]}'"]

[[hooks.before_call]]
command = "sh"
args = ["-c", "cat >/dev/null; env > hook_env.txt; echo '{\\"decision\\":\\"allow\\"}'"]

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN" }
`;

Deno.test("the env provider's variables reach only a call granted them, never by inheritance", async () => {
  const env = { ...ENV, DEPLOY_TOKEN: VALUE };
  const w = await open(DUMPS, { env });
  try {
    const plain = await w.reg.call("envdump_app", {});
    assert.equal(plain.isError, false, JSON.stringify(plain));
    const toolEnv = fs.readFileSync(path.join(w.app, "tool_env.txt"), "utf8");
    const hookEnv = fs.readFileSync(path.join(w.root, "hook_env.txt"), "utf8");
    for (const [what, dump] of [["command tool", toolEnv], ["hook command", hookEnv]]) {
      assert.ok(!dump.includes(VALUE), `${what}: the value is not inherited`);
      assert.ok(!dump.includes("DEPLOY_TOKEN"), `${what}: nor the variable`);
    }
    const sh = await w.reg.call("shell_app", { command: 'printf "[%s]" "$DEPLOY_TOKEN"' });
    assert.match(
      JSON.stringify(sh),
      /"text":"\[\]"/,
      `shell_exec without a binding gets nothing: ${JSON.stringify(sh)}`,
    );
    const granted = await w.reg.call("shell_app", {
      command: 'test "$T" = "$(printf %s tok-Inherit-5150)" && echo granted',
      protectedBindings: { T: "protected://deploy" },
    });
    assert.match(JSON.stringify(granted), /granted/, "a granted call still gets the value");
    assert.equal(w.reg.env.DEPLOY_TOKEN, undefined, "withheld from the registry's environment");
    assert.equal(env.DEPLOY_TOKEN, VALUE, "the caller's own object is left as it was");
  } finally {
    await w.cleanup();
  }
});

Deno.test("a frozen caller environment is copied, and the variable still withheld", async () => {
  const w = await open(DUMPS, { env: Object.freeze({ ...ENV, DEPLOY_TOKEN: VALUE }) });
  try {
    assert.equal(w.reg.env.DEPLOY_TOKEN, undefined);
  } finally {
    await w.cleanup();
  }
});

/** Every process of ours whose environment holds `value` (other than this one). */
function processesHolding(value: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === Deno.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, "latin1").includes(value)) {
        found.push(Number(name));
      }
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

Deno.test("a granted value never waits in a warm spare after its call", async () => {
  if (!fs.existsSync("/proc/self/environ")) return;
  const env = { ...ENV, DEPLOY_TOKEN: VALUE };
  const w = await open(DUMPS, { env });
  try {
    for (let i = 0; i < 3; i++) {
      const granted = await w.reg.call("token_app", {
        protectedBindings: { TOKEN: "protected://deploy" },
      });
      assert.equal(granted.isError, false, JSON.stringify(granted));
      // The spare that follows the call is spawned (or not) by the time the pool settles.
      await w.reg.warm?.settled();
      assert.deepEqual(processesHolding(VALUE), [], "no process holds the value after its call");
    }
    assert.ok((w.reg.warm?.stats.spawned ?? 1) > 0, "spares were spawned after the calls");
  } finally {
    await w.cleanup();
  }
});
