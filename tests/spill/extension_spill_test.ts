/**
 * Spill-to-artifact for extension results: a text beyond 64 KiB becomes a preview plus a
 * validated artifact that get_artifact_field pages through (the default); exactly 64 KiB
 * stays inline; `overflow = "truncate"` cuts with the marker instead.
 */

import assert from "node:assert/strict";
import { countRendered } from "../../lib/odek/render.ts";
import { TRUNCATION_MARKER } from "../../lib/text/text_clean.ts";
import { evalToolSource } from "../../lib/mcp/tool_source.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { extensionToml, REPO } from "../mcp/_helpers.ts";

const HEAL = [
  "run",
  "-A",
  "--config",
  `${REPO}/deno.json`,
  `${REPO}/tests/fixtures/mcp/heal_server.ts`,
];

/** The fixture server's `big` text (same algorithm). */
function bigText(bytes: number): string {
  const lines: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const line = `line ${i} ${"x".repeat(60)}\n`;
    lines.push(line);
    n += line.length;
  }
  return lines.join("").slice(0, bytes);
}

async function source(overflow?: string) {
  const tmp = await tempWorkspace("", { "app/README.md": "# app\n" });
  const toml =
    `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
    `extensions = ["hx"]\n` +
    extensionToml("hx", {
      command: "deno",
      args: HEAL,
      timeout_ms: 30000,
      ...(overflow ? { overflow } : {}),
    });
  Deno.writeTextFileSync(`${tmp.root}/toolhost.toml`, toml);
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
  });
  return { tmp, src: evalToolSource(reg) };
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

Deno.test("an extension's oversized text becomes an artifact get_artifact_field reads", async () => {
  const { tmp, src } = await source();
  try {
    const inline = await src.call("big_hx", { bytes: 64 * 1024 });
    assert.equal(text(inline), bigText(64 * 1024));
    const over = text(await src.call("big_hx", { bytes: 64 * 1024 + 1 }));
    assert.equal(countRendered(over), 1);
    assert.match(over, /size=65537 bytes/);
    const r = await src.call("big_hx", { bytes: 200_000 });
    assert.equal(r.isError, false);
    const t = text(r);
    assert.equal(countRendered(t), 1);
    assert.match(
      t,
      /\[the output is 200000 bytes in all; the full text is the artifact "big_hx-output-/,
    );
    assert.doesNotMatch(t, new RegExp(tmp.root));
    const id = /\[artifact\] id="([^"]+)"/.exec(t)![1];
    let all = "";
    for (let offset = 0;;) {
      const page = await src.call("get_artifact_field", {
        artifact_ref: id,
        field: "content",
        offset,
        max_chars: 150_000,
      });
      const d = (page.content[0] as { data: { content: string; next_offset: number | null } }).data;
      all += d.content;
      if (d.next_offset === null) break;
      offset = d.next_offset;
    }
    assert.equal(all, bigText(200_000));
  } finally {
    await src.close();
    await tmp.cleanup();
  }
});

Deno.test('overflow = "truncate" cuts an extension text at 64 KiB with the marker', async () => {
  const { tmp, src } = await source("truncate");
  try {
    const t = text(await src.call("big_hx", { bytes: 200_000 }));
    assert.ok(t.endsWith(TRUNCATION_MARKER));
    assert.equal(new TextEncoder().encode(t).length, 64 * 1024);
  } finally {
    await src.close();
    await tmp.cleanup();
  }
});
