/**
 * Fail closed: a confined tool where bubblewrap is missing, or on a platform without
 * Linux namespaces, is refused with an error naming the fix — never run unconfined —
 * and `tools check` (JSON) shows the confinement in effect per tool, why it is
 * unavailable, and flags every unconfined tool of an agent eval.
 */

import assert from "node:assert/strict";
import { configureSandbox } from "../../lib/sandbox/detect.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { runCapture } from "../helpers/cli.ts";
import { printSkip, skipReason } from "./_corpus.ts";

const TOML = `[artifacts.app]
path = "app"

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.touch]
description = "Leave a trace."
protocol = "plain"
command = "sh"
args = ["-c", "echo ran > ran.txt; echo done"]
sandbox = "write"

[artifacts.app.views.agent_tools.free]
description = "Unconfined."
protocol = "plain"
command = "sh"
args = ["-c", "echo free"]
`;

const FILES = { "app/README.md": "# app\n" };

function text(r: { content: { type: string; text?: string }[] }): string {
  return r.content.map((b) => b.text ?? "").join("");
}

for (
  const [what, config, fix] of [
    ["bwrap missing", { bwrap: "/nonexistent/bwrap" }, /bubblewrap/],
    ["macOS", { platform: "darwin" }, /needs Linux namespaces/],
    ["Windows", { platform: "win32" }, /needs Linux namespaces/],
  ] as const
) {
  Deno.test(`fail closed (${what}): the confined tool is refused and never runs`, async () => {
    await using ws = await tempWorkspace(TOML, FILES);
    configureSandbox(what === "bwrap missing" ? { bwrap: config.bwrap } : { ...config });
    try {
      const reg = await Registry.open(await loadWorkspace(ws.root), "app/review");
      try {
        const r = await reg.call("touch_app", {});
        assert.equal(r.isError, true);
        assert.match(text(r), fix);
        assert.match(text(r), /not run unconfined/);
        assert.throws(() => Deno.statSync(`${ws.root}/app/ran.txt`));
        const free = await reg.call("free_app", {});
        assert.equal(text(free).trim(), "free");
      } finally {
        await reg.close();
      }
      const check = await runCapture(["tools", "check", "app/review", "--json", "--repo", ws.root]);
      assert.equal(check.code, 1, check.out);
      const report = JSON.parse(check.out);
      const touch = report.tools.find((t: { name: string }) => t.name === "touch_app");
      assert.match(touch.confinement.effect, /^refused \(/);
      assert.match(touch.confinement.unavailable, fix);
      assert.equal(touch.ready, false);
    } finally {
      configureSandbox({});
    }
  });
}

Deno.test("tools check: the confinement in effect per tool, and unconfined agent tools flagged", async () => {
  const skip = skipReason();
  if (skip) return printSkip("tools check confinement", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const check = await runCapture(["tools", "check", "app/review", "--json", "--repo", ws.root]);
  assert.equal(check.code, 0, check.out);
  const report = JSON.parse(check.out);
  const by = (n: string) => report.tools.find((t: { name: string }) => t.name === n);
  assert.equal(by("touch_app").confinement.effect, "bubblewrap fs=write net=off");
  assert.equal(by("touch_app").confinement.flag, undefined);
  assert.equal(by("free_app").confinement.effect, "host");
  assert.match(by("free_app").confinement.flag, /unconfined/);
  const human = await runCapture(["tools", "check", "app/review", "--repo", ws.root]);
  assert.match(human.out, /touch_app +ready +plain, bubblewrap fs=write net=off/);
  assert.match(human.out, /free_app +ready +plain, host \(unconfined\)/);
});

Deno.test("a confined write tool runs and writes only its own Artifact", async () => {
  const skip = skipReason();
  if (skip) return printSkip("confined write tool", skip);
  await using ws = await tempWorkspace(TOML, FILES);
  const reg = await Registry.open(await loadWorkspace(ws.root), "app/review");
  try {
    const r = await reg.call("touch_app", {});
    assert.equal(text(r).trim(), "done", text(r));
    assert.equal(Deno.readTextFileSync(`${ws.root}/app/ran.txt`), "ran\n");
  } finally {
    await reg.close();
  }
});
