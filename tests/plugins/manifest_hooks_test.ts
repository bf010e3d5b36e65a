import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { BASE, errText, logLines, open, text } from "./_helpers.ts";

const HOOK = `#!/bin/sh
# Usage: hook.sh MODE — saves its request, then answers per MODE.
cat > "$(dirname "$0")/../last_$1.json"
case "$1" in
  allow) echo '{"decision":"allow"}' ;;
  deny) echo '{"decision":"deny","reason":"hook says no"}' ;;
  fail) echo '{"decision":"allow"}'; exit 2 ;;
  garbage) echo 'not json' ;;
  extra) echo '{"decision":"allow","continue":true}' ;;
  slow) sleep 30; echo '{"decision":"allow"}' ;;
  replace) echo '{"result":{"content":[{"type":"text","text":"replaced by hook"}]}}' ;;
  invalid) echo '{"result":{"content":[]}}' ;;
  withhold) echo '{"decision":"deny","reason":"contains secrets"}' ;;
esac
`;

function hooks(
  entries: { event: string; mode: string; tools?: string[]; timeout?: number }[],
): string {
  return entries.map((e) =>
    `\n[[hooks.${e.event}]]\ncommand = "hooks/hook.sh"\nargs = ["${e.mode}"]\n` +
    (e.tools ? `tools = ${JSON.stringify(e.tools)}\n` : "") +
    (e.timeout ? `timeout_ms = ${e.timeout}\n` : "")
  ).join("");
}

const FILES = { "hooks/hook.sh": { text: HOOK, mode: 0o755 } };

Deno.test("before_call command: allow runs the tool; the request follows the protocol", async () => {
  const w = await open(BASE + hooks([{ event: "before_call", mode: "allow" }]), { files: FILES });
  try {
    assert.equal(text(await w.reg.call("mark_app", { value: "v" })), "ran");
    const req = JSON.parse(fs.readFileSync(path.join(w.root, "last_allow.json"), "utf8"));
    assert.deepEqual(
      { ...req, context: { ...req.context, callId: typeof req.context.callId } },
      {
        version: 1,
        event: "before_call",
        eval: "app/review",
        tool: "mark_app",
        args: { value: "v" },
        context: { callId: "string", artifactId: "app", builtin: null, session: null },
      },
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("before_call command: deny, nonzero exit, bad JSON, extra keys, timeout — never a process", async () => {
  for (const mode of ["deny", "fail", "garbage", "extra", "slow"]) {
    // Only `slow` must hit its deadline; the others get room to finish on a busy machine.
    const timeout = mode === "slow" ? 300 : 60_000;
    const w = await open(BASE + hooks([{ event: "before_call", mode, timeout }]), {
      files: FILES,
    });
    try {
      const t = errText(await w.reg.call("mark_app", {}));
      if (mode === "deny") {
        assert.equal(t, "The call was denied by `hooks.before_call[0]`: hook says no");
      } else {assert.match(
          t,
          /refused: the before_call hook `hooks\.before_call\[0\]` failed or timed out/,
          mode,
        );}
      assert.equal(w.ran(), false, `${mode}: the tool never ran`);
      if (mode === "slow") {
        assert.match(logLines(w.stateDir, "plugins.log").join("\n"), /timed out after 300 ms/);
      }
      if (mode === "fail") {
        assert.match(logLines(w.stateDir, "plugins.log").join("\n"), /exited with status 2/);
      }
    } finally {
      await w.cleanup();
    }
  }
});

Deno.test("hook matchers: a hook runs only for matching tool names", async () => {
  const w = await open(
    BASE + hooks([{ event: "before_call", mode: "deny", tools: ["shell_*", "other_?pp"] }]),
    { files: FILES },
  );
  try {
    assert.equal(text(await w.reg.call("mark_app", {})), "ran");
    assert.match(
      errText(await w.reg.call("shell_app", { command: "touch shell.marker" })),
      /hook says no/,
    );
    assert.ok(!fs.existsSync(path.join(w.app, "shell.marker")));
  } finally {
    await w.cleanup();
  }
});

Deno.test("after_call command: replace, invalid replacement, withhold", async () => {
  for (
    const [mode, check] of [
      ["replace", (t: string) => assert.equal(t, "replaced by hook")],
      ["invalid", (t: string) =>
        assert.match(
          t,
          /returned an invalid result \(`content` must be an array of 1 to 32 blocks\)/,
        )],
      ["withhold", (t: string) =>
        assert.equal(
          t,
          "The call's result was withheld by `hooks.after_call[0]`: contains secrets",
        )],
      [
        "fail",
        (t: string) =>
          assert.match(t, /withheld: the after_call hook `hooks\.after_call\[0\]` failed/),
      ],
    ] as const
  ) {
    const w = await open(BASE + hooks([{ event: "after_call", mode }]), { files: FILES });
    try {
      check(text(await w.reg.call("mark_app", { value: "v" })));
      const req = JSON.parse(fs.readFileSync(path.join(w.root, `last_${mode}.json`), "utf8"));
      assert.equal(req.event, "after_call");
      assert.deepEqual(req.result, { content: [{ type: "text", text: "ran" }], isError: false });
    } finally {
      await w.cleanup();
    }
  }
});

Deno.test("hooks run in manifest order: before_call entries in sequence, the first denial wins", async () => {
  const w = await open(
    BASE +
      hooks([{ event: "before_call", mode: "allow" }, { event: "before_call", mode: "deny" }, {
        event: "before_call",
        mode: "garbage",
      }]),
    { files: FILES },
  );
  try {
    assert.match(errText(await w.reg.call("mark_app", {})), /denied by `hooks\.before_call\[1\]`/);
    assert.ok(fs.existsSync(path.join(w.root, "last_allow.json")));
    assert.ok(
      !fs.existsSync(path.join(w.root, "last_garbage.json")),
      "later hooks do not run after a denial",
    );
  } finally {
    await w.cleanup();
  }
});
