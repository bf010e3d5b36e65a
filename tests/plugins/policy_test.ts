import assert from "node:assert/strict";
import { join } from "node:path";
import { compilePolicy } from "../../plugins/policy/rules.ts";
import { atPointer, evaluatePolicy } from "../../plugins/policy/evaluate.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { ENV as SESSION_ENV, HARNESS, sessionToml } from "../sessions/_helpers.ts";
import { BASE, errText, open, text } from "./_helpers.ts";

Deno.test("policy evaluation: first matching rule wins, else the default", () => {
  const p = compilePolicy({
    default: "deny",
    rules: [
      {
        effect: "deny",
        tools: ["shell_*"],
        match: [{ pointer: "/command", pattern: "\\brm\\b" }],
        reason: "no rm",
      },
      { effect: "allow", tools: ["shell_*", "read_*"] },
      { effect: "deny", tools: ["read_*"], reason: "never reached" },
    ],
  }, () => assert.fail("valid"))!;
  assert.deepEqual(evaluatePolicy(p, "shell_app", { command: "rm -rf x" }), {
    effect: "deny",
    rule: 1,
    reason: "no rm",
  });
  assert.deepEqual(evaluatePolicy(p, "shell_app", { command: "ls" }), { effect: "allow", rule: 2 });
  assert.deepEqual(evaluatePolicy(p, "read_app", {}), { effect: "allow", rule: 2 });
  assert.equal(evaluatePolicy(p, "mark_app", {}).effect, "deny");
  assert.equal(evaluatePolicy(p, "mark_app", {}).rule, null);
});

Deno.test("policy matchers: JSON pointers into nested values, arrays match any element", () => {
  assert.equal(atPointer({ "a/b": { "~": [0, "x"] } }, ["a/b", "~", "1"]), "x");
  const p = compilePolicy({
    rules: [{
      effect: "deny",
      match: [{ pointer: "/args", pattern: "^--force$" }, {
        pointer: "/env/MODE",
        pattern: "prod",
      }],
    }],
  }, () => {})!;
  assert.equal(
    evaluatePolicy(p, "t", { args: ["a", "--force"], env: { MODE: "prod" } }).effect,
    "deny",
  );
  assert.equal(
    evaluatePolicy(p, "t", { args: ["a", "--force"], env: { MODE: "dev" } }).effect,
    "allow",
    "all matchers must match",
  );
  assert.equal(
    evaluatePolicy(p, "t", { args: { x: "--force" }, env: { MODE: "prod" } }).effect,
    "allow",
    "objects never match",
  );
  assert.equal(evaluatePolicy(p, "t", {}).effect, "allow", "absent values never match");
});

const POLICY = `${BASE}
[plugins]
enable = ["policy"]

[plugins.policy]
[[plugins.policy.rules]]
effect = "deny"
tools = ["mark_*"]
match = [{ pointer = "/value", pattern = "^danger" }]
reason = "dangerous value"
`;

Deno.test("policy in the registry: every call is judged again — no decision is cached", async () => {
  const w = await open(POLICY);
  try {
    assert.equal(text(await w.reg.call("mark_app", { value: "safe" })), "ran");
    assert.equal(
      errText(await w.reg.call("mark_app", { value: "danger!" })),
      "The call was denied by `policy`: dangerous value",
    );
    assert.equal(text(await w.reg.call("mark_app", { value: "safe" })), "ran");
    assert.match(errText(await w.reg.call("mark_app", { value: "danger!" })), /dangerous value/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("policy applies to calls inside a tool session; a denied bound call never reaches it", async () => {
  const toml = `${sessionToml()}
[plugins]
enable = ["policy"]

[plugins.policy]
[[plugins.policy.rules]]
effect = "deny"
tools = ["put_app"]
match = [{ pointer = "/value", pattern = "^forbidden" }]
reason = "not this value"
`;
  const tw = await tempWorkspace(toml, {
    "app/harness.sh": { text: HARNESS, mode: 0o755 },
    "app/README.md": "x",
  });
  const reg = await Registry.open(await loadWorkspace(tw.root), "app/review", {
    stateDir: join(tw.root, ".state"),
    env: SESSION_ENV,
  });
  try {
    assert.equal(text(await reg.call("put_app", { value: "first" })).trim(), "stored");
    assert.match(
      errText(await reg.call("put_app", { value: "forbidden-value" })),
      /not this value/,
    );
    assert.equal(
      text(await reg.call("get_app", {})).trim(),
      "first",
      "the denied call never reached the session",
    );
  } finally {
    await reg.close();
    await tw.cleanup();
  }
});
