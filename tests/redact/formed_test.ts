/**
 * Values that toolhost's own flattening would form: a protected value holding a space
 * (`Bearer …`, a passphrase) that a hook or a tool prints with a tab or a line break in
 * place of the space. Deny reasons turn control characters into spaces and odek renders
 * flatten fields to one line before they clip them: what they hand out must be redacted
 * as it is handed out, before the cut, never only as the process printed it.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { renderings } from "./_helpers.ts";

const VALUE = "Bearer QZXK-PWNBRTVY-HJMLDSGCF-XQWE";
/** The value as a process prints it: a control character where the space is. */
const SPLIT = (sep: string) => VALUE.replace(" ", sep);

const HOOK = `#!/bin/sh
cat > /dev/null
exec cat "$(dirname "$0")/answer_$1.json"
`;

const TOML = `[artifacts.app]
path = "app"
artifact_roots = ["app/out"]

[artifacts.app.evals.review]
audience = "agent"

[artifacts.app.views.agent_tools.env]
description = "Prints an odek envelope."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; cat envelope.json"]

[[hooks.before_call]]
command = "hooks/hook.sh"
args = ["before"]
tools = ["mark_app"]

[[hooks.after_call]]
command = "hooks/hook.sh"
args = ["after"]
tools = ["env_app"]

[artifacts.app.views.agent_tools.mark]
description = "Answers ok."
protocol = "json"
command = "sh"
args = ["-c", "cat >/dev/null; echo '{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"ok\\"}]}'"]

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN" }
`;

async function withRegistry(
  answers: { before: string; after: string; envelope: string },
  fn: (reg: Registry) => Promise<void>,
): Promise<void> {
  const tw = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/out/a.txt": "artifact\n",
    "hooks/hook.sh": { text: HOOK, mode: 0o755 },
    "hooks/answer_before.json": answers.before,
    "hooks/answer_after.json": answers.after,
  });
  Deno.writeTextFileSync(
    path.join(tw.root, "app/envelope.json"),
    answers.envelope.replaceAll("@ROOT@", tw.root),
  );
  const reg = await Registry.open(await loadWorkspace(tw.root), "app/review", {
    stateDir: path.join(tw.root, ".state"),
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/",
      DEPLOY_TOKEN: VALUE,
    },
  });
  try {
    await fn(reg);
  } finally {
    await reg.close();
    await tw.cleanup();
  }
}

const deny = (reason: string) => JSON.stringify({ decision: "deny", reason });
const allow = JSON.stringify({ decision: "allow" });
/** The value formed at `at` units of a flattened field, with `d` filler before it. */
const padded = (at: number, shift: number, sep: string) => "d".repeat(at + shift) + SPLIT(sep);

function envelope(fields: { text?: string; id?: string; summary?: string }): string {
  const inner = {
    schema: "odek.tool-result/v1",
    text: fields.text ?? "done",
    artifacts: [{
      schema: "odek.artifact-ref/v1",
      id: fields.id ?? "a",
      uri: "file://@ROOT@/app/out/a.txt",
      media_type: "text/plain",
      ...(fields.summary !== undefined ? { summary: fields.summary } : {}),
    }],
  };
  return JSON.stringify({ content: [{ type: "text", text: JSON.stringify(inner) }] });
}

/** The value as toolhost would form it, up to two characters past its space. */
const FORMED = VALUE.slice(0, 9);

/** No rendering of `r` holds the formed value, whole or cut anywhere past its space. */
function check(r: ToolResult, what: string): void {
  for (const s of renderings(r)) {
    const at = s.indexOf(FORMED);
    if (at >= 0) assert.fail(`${what}: ${JSON.stringify(s.slice(Math.max(0, at - 20), at + 40))}`);
  }
}

Deno.test("a deny reason whose control characters become the value's space is redacted", async () => {
  for (const sep of ["\t", "\n", "\u0085"]) {
    // Whole, and with the 1000-unit cut falling inside the formed value.
    for (const reason of [`no: ${SPLIT(sep)}`, padded(1000 - 20, 0, sep)]) {
      const answers = { before: deny(reason), after: deny(reason), envelope: envelope({}) };
      await withRegistry(answers, async (reg) => {
        check(await reg.call("mark_app", {}), `before_call ${JSON.stringify(sep)}`);
        check(await reg.call("env_app", {}), `after_call ${JSON.stringify(sep)}`);
      });
    }
  }
});

Deno.test("an odek render that flattens a field into the value, then clips it, shows none", async () => {
  for (const sep of ["\t", "\r", "\n", "\u001b"]) {
    for (const shift of [-20, -12, -9]) {
      const fields = [
        { summary: padded(1023, shift, sep) },
        { id: padded(255, shift, sep) },
        { text: `x ${SPLIT(sep)} y` },
      ];
      for (const f of fields) {
        await withRegistry(
          { before: allow, after: allow, envelope: envelope(f) },
          async (reg) => {
            const r = await reg.call("env_app", {});
            assert.equal(r.isError, false, JSON.stringify(r).slice(0, 400));
            check(r, `render ${Object.keys(f)[0]} ${JSON.stringify(sep)} ${shift}`);
          },
        );
      }
    }
  }
});
