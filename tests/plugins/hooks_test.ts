import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { definePlugin, errorResult, textResult } from "../../lib/plugins/mod.ts";
import type { CallEndedInfo, SessionInfo } from "../../lib/plugins/api.ts";
import { BASE, errText, logLines, open, text } from "./_helpers.ts";

Deno.test("beforeCall deny: the reason is the tool error and no process starts", async () => {
  const deny = definePlugin({
    name: "deny-mark",
    setup(api) {
      api.beforeCall(() => ({ decision: "deny", reason: "marking is off today" }), {
        tools: ["mark_*"],
      });
    },
  });
  const w = await open(BASE, { plugins: [deny] });
  try {
    const r = await w.reg.call("mark_app", { value: "v" });
    assert.equal(errText(r), "The call was denied by `deny-mark`: marking is off today");
    assert.equal(w.ran(), false, "a denied call never starts a process");
    assert.ok(
      !fs.existsSync(path.join(w.stateDir, "calls")) ||
        fs.readdirSync(path.join(w.stateDir, "calls")).length === 0,
    );
    const ok = await w.reg.call("read_app", { path: "README.md" });
    assert.equal(ok.isError, false, "the matcher limits the hook to mark_*");
  } finally {
    await w.cleanup();
  }
});

Deno.test("hooks get deep-frozen arguments and can never rewrite them", async () => {
  let attempted = false;
  const tamper = definePlugin({
    name: "tamper",
    setup(api) {
      api.beforeCall((call) => {
        assert.ok(Object.isFrozen(call.args));
        try {
          (call.args as Record<string, unknown>).value = "rewritten";
        } catch {
          attempted = true;
        }
      });
    },
  });
  const w = await open(BASE, { plugins: [tamper] });
  try {
    assert.equal(text(await w.reg.call("mark_app", { value: "original" })), "ran");
    assert.ok(attempted, "writing to the frozen args threw");
    const req = JSON.parse(fs.readFileSync(path.join(w.app, "request.json"), "utf8"));
    assert.deepEqual(req.args, { value: "original" });
  } finally {
    await w.cleanup();
  }
});

Deno.test("order is the manifest's: [plugins] enable, then the other library plugins", async () => {
  const seen: string[] = [];
  const mk = (name: string) =>
    definePlugin({ name, setup: (api) => api.beforeCall(() => void seen.push(name)) });
  const [a, b, c] = [mk("p-a"), mk("p-b"), mk("p-c")];
  const w = await open(`${BASE}\n[plugins]\nenable = ["p-c", "p-a"]\n`, { plugins: [a, b, c] });
  try {
    await w.reg.call("read_app", { path: "README.md" });
    assert.deepEqual(seen, ["p-c", "p-a", "p-b"]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("a throwing or slow beforeCall denies (fail closed); details only in the log", async () => {
  const boom = definePlugin({
    name: "boom",
    setup(api) {
      api.beforeCall(() => {
        throw new Error("internal detail 1234");
      }, { tools: ["mark_*"] });
      api.beforeCall(() => new Promise(() => {}), { tools: ["token_*"], timeoutMs: 50 });
    },
  });
  const w = await open(BASE, { plugins: [boom] });
  try {
    const r = errText(await w.reg.call("mark_app", {}));
    assert.match(r, /refused: the before_call hook `boom` failed or timed out/);
    assert.ok(!r.includes("1234"));
    assert.equal(w.ran(), false);
    assert.match(errText(await w.reg.call("token_app", {})), /`boom` failed or timed out/);
    const log = logLines(w.stateDir, "plugins.log").join("\n");
    assert.match(log, /internal detail 1234/);
    assert.match(log, /did not finish within 50 ms/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("an invalid decision or env contribution denies", async () => {
  const bad = definePlugin({
    name: "bad",
    setup(api) {
      // deno-lint-ignore no-explicit-any
      api.beforeCall((() => ({ decision: "maybe" })) as any, { tools: ["mark_*"] });
      api.beforeCall(() => ({ decision: "allow", env: { "BAD NAME": "x" } }), {
        tools: ["token_*"],
      });
    },
  });
  const w = await open(BASE, { plugins: [bad] });
  try {
    assert.match(errText(await w.reg.call("mark_app", {})), /refused/);
    assert.match(errText(await w.reg.call("token_app", {})), /refused/);
    assert.equal(w.ran(), false);
  } finally {
    await w.cleanup();
  }
});

Deno.test("beforeCall env reaches the command's environment, not its arguments", async () => {
  const grant = definePlugin({
    name: "grant",
    setup: (api) => api.beforeCall(() => ({ decision: "allow", env: { TOKEN: "granted" } })),
  });
  const w = await open(BASE, { plugins: [grant] });
  try {
    assert.equal(text(await w.reg.call("token_app", {})), "token=granted");
    const sh = await w.reg.call("shell_app", { command: 'printf %s "$TOKEN"' });
    assert.equal(
      (sh.content[0] as { data: { stdout: { text: string } } }).data.stdout.text,
      "granted",
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("afterCall may replace the result; invalid or failing hooks withhold it", async () => {
  const mode = { v: "annotate" };
  const after = definePlugin({
    name: "after",
    setup(api) {
      api.afterCall((result) => {
        if (mode.v === "annotate") {
          return {
            content: [...result.content, { type: "text", text: "[reviewed]" }],
            isError: false,
          };
        }
        if (mode.v === "invalid") {
          return {
            content: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
            isError: true,
          };
        }
        if (mode.v === "huge") return textResult("x".repeat(70 * 1024));
        if (mode.v === "error") return errorResult("replaced by an error");
        if (mode.v === "throw") throw new Error("after detail 987");
      });
    },
  });
  const w = await open(BASE, { plugins: [after] });
  try {
    const a = await w.reg.call("mark_app", {});
    assert.deepEqual(a.content.map((b) => (b as { text: string }).text), ["ran", "[reviewed]"]);
    mode.v = "invalid";
    assert.match(
      errText(await w.reg.call("mark_app", {})),
      /withheld: the after_call hook `after` returned an invalid result \(an error result must have exactly one nonblank text block\)/,
    );
    mode.v = "huge";
    assert.match(errText(await w.reg.call("mark_app", {})), /larger than 64 KiB/);
    mode.v = "error";
    assert.equal(errText(await w.reg.call("mark_app", {})), "replaced by an error");
    mode.v = "throw";
    const t = errText(await w.reg.call("mark_app", {}));
    assert.match(t, /withheld: the after_call hook `after` failed or timed out/);
    assert.ok(!t.includes("987"));
    assert.match(logLines(w.stateDir, "plugins.log").join("\n"), /after detail 987/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("callEnded sees every call (denied ones too); session events reach observers", async () => {
  const ended: CallEndedInfo[] = [];
  const sessions: string[] = [];
  const obs = definePlugin({
    name: "obs",
    setup(api) {
      api.beforeCall((
        c,
      ) => (c.args.value === "no" ? { decision: "deny", reason: "no" } : undefined));
      api.callEnded((i) => void ended.push(i));
      api.sessionStarted((s: SessionInfo) =>
        void sessions.push(`start:${s.eval}:${s.artifactId}/${s.session}`)
      );
      api.sessionEnded((s: SessionInfo) => {
        sessions.push(`end:${s.reason}`);
        throw new Error("observer errors are only logged");
      });
    },
  });
  const w = await open(BASE, { plugins: [obs] });
  try {
    await w.reg.call("mark_app", { value: "yes" });
    await w.reg.call("mark_app", { value: "no" });
    assert.deepEqual(ended.map((e) => [e.tool, e.outcome, e.eval]), [[
      "mark_app",
      "ok",
      "app/review",
    ], ["mark_app", "denied", "app/review"]]);
    assert.ok(ended.every((e) => e.resultBytes > 0 && e.durationMs >= 0 && e.callId.length === 16));
    await w.reg.plugins.emitSessionStarted({ artifactId: "app", session: "web" });
    await w.reg.plugins.emitSessionEnded({ artifactId: "app", session: "web", reason: "stopped" });
    assert.deepEqual(sessions, ["start:app/review:app/web", "end:stopped"]);
    assert.match(logLines(w.stateDir, "plugins.log").join("\n"), /session_ended/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("artifact tools pass the hooks too", async () => {
  const deny = definePlugin({
    name: "deny-all",
    setup: (api) => api.beforeCall(() => ({ decision: "deny", reason: "locked" })),
  });
  const w = await open(BASE, { plugins: [deny] });
  try {
    const r = await w.reg.call("get_artifact_field", { artifactId: "x", field: "y" });
    assert.equal(errText(r), "The call was denied by `deny-all`: locked");
  } finally {
    await w.cleanup();
  }
});

Deno.test("api.redact hides a value in results, errors and the log", async () => {
  const red = definePlugin({
    name: "red",
    setup(api) {
      api.redact("hunter22");
      api.beforeCall((c) => {
        if (c.tool === "read_app") throw new Error("failed on hunter22");
      });
    },
  });
  const w = await open(BASE, { plugins: [red], files: { "app/pw.txt": "pw=hunter22\n" } });
  try {
    const r = await w.reg.call("shell_app", { command: "cat pw.txt; echo hunter22 >&2" });
    const s = JSON.stringify(r);
    assert.ok(!s.includes("hunter22"));
    assert.match(s, /pw=\[protected\]/);
    await w.reg.call("read_app", { path: "pw.txt" });
    assert.ok(!logLines(w.stateDir, "plugins.log").join("\n").includes("hunter22"));
  } finally {
    await w.cleanup();
  }
});

Deno.test("a setup that throws fails the open (fail closed); definePlugin checks names", async () => {
  const broken = definePlugin({
    name: "broken",
    setup: () => {
      throw new Error("nope");
    },
  });
  await assert.rejects(open(BASE, { plugins: [broken] }), /plugin `broken` failed to set up/);
  assert.throws(() => definePlugin({ name: "Bad Name" }), /plugin names must match/);
  assert.throws(
    () =>
      definePlugin({
        name: "x",
        tools: [{
          name: "t",
          description: "",
          inputSchema: {},
          run: () => textResult(""),
        }, {
          name: "t",
          description: "",
          inputSchema: {},
          run: () => textResult(""),
        }],
      }),
    /defined twice/,
  );
  const dup = definePlugin({ name: "policy" });
  await assert.rejects(open(BASE, { plugins: [dup] }), /taken by a first-party plugin/);
});

Deno.test("hook options: timeoutMs 1..600000 and valid globs, else setup fails the open", async () => {
  const withTimeout = (ms: number) =>
    definePlugin({ name: `t${ms}`, setup: (api) => api.beforeCall(() => {}, { timeoutMs: ms }) });
  for (const ms of [1, 600_000]) {
    const w = await open(BASE, { plugins: [withTimeout(ms)] });
    await w.cleanup();
  }
  for (const ms of [0, 600_001]) {
    await assert.rejects(open(BASE, { plugins: [withTimeout(ms)] }), /failed to set up/);
  }
  const badGlob = definePlugin({
    name: "g",
    setup: (api) => api.beforeCall(() => {}, { tools: ["A B"] }),
  });
  await assert.rejects(open(BASE, { plugins: [badGlob] }), /failed to set up/);
});
