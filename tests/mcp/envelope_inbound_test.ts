/**
 * Envelopes in extension results are validated whatever shape carries them: a text over
 * 64 KiB (never spilled or cut before the check), an error result, a content-less
 * `structuredContent`. Seed 001: refs are validated fail-closed, raw absolute paths are
 * never rendered, and metadata lines follow the envelope text after its cap.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { envelopeMapper } from "../../lib/extensions/envelope.ts";
import { fromMcpResult } from "../../lib/extensions/inbound_result.ts";
import { countRendered } from "../../lib/odek/render.ts";
import { LIMITS, type ToolResult } from "../../lib/results/types.ts";

function fixture() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-env-")));
  mkdirSync(join(dir, "out"));
  mkdirSync(join(dir, "secret"));
  writeFileSync(join(dir, "out", "ok.txt"), "fine\n");
  writeFileSync(join(dir, "secret", "s.txt"), "TOPSECRET\n");
  return { dir, rm: () => rmSync(dir, { recursive: true, force: true }) };
}

function envelope(dir: string, file: string, textChars: number): string {
  return JSON.stringify({
    schema: "odek.tool-result/v1",
    text: "t".repeat(textChars),
    artifacts: [{
      schema: "odek.artifact-ref/v1",
      id: "a1",
      uri: `file://${join(dir, file)}`,
      media_type: "text/plain",
    }],
  });
}

const textOf = (r: ToolResult) => r.content.map((b) => (b.type === "text" ? b.text : "")).join();

async function inbound(dir: string, raw: unknown, spill = true): Promise<ToolResult> {
  let spilled = 0;
  const r = await fromMcpResult(raw, {
    mapText: envelopeMapper("ev", [join(dir, "out")]),
    spillText: spill ? (t) => Promise.resolve(`[spilled ${(spilled += t.length)}]`) : undefined,
  });
  assert.equal(spilled, 0, "an envelope was spilled instead of validated");
  return r;
}

Deno.test("an envelope over 64 KiB is validated: outside the roots it is refused", async () => {
  const f = fixture();
  try {
    for (const spill of [true, false]) {
      const text = envelope(f.dir, "secret/s.txt", 70_000);
      const r = await inbound(f.dir, { content: [{ type: "text", text }] }, spill);
      assert.equal(r.isError, true);
      assert.equal(textOf(r).includes(f.dir), false, "a physical path was shown");
      assert.equal(textOf(r).includes("TOPSECRET"), false);
    }
  } finally {
    f.rm();
  }
});

Deno.test("a valid envelope over 64 KiB: its text is cut, every metadata line kept", async () => {
  const f = fixture();
  try {
    for (const chars of [LIMITS.maxTextBytes - 200, 70_000]) {
      const text = envelope(f.dir, "out/ok.txt", chars);
      const r = await inbound(f.dir, { content: [{ type: "text", text }] });
      assert.equal(r.isError, false, textOf(r).slice(0, 200));
      const out = textOf(r);
      assert.ok(Buffer.byteLength(out) <= LIMITS.maxTextBytes, String(Buffer.byteLength(out)));
      assert.equal(countRendered(out), 1);
      assert.equal(out.includes(f.dir), false);
      assert.equal(out.includes("[output truncated at 64 KiB]"), chars > LIMITS.maxTextBytes);
    }
  } finally {
    f.rm();
  }
});

Deno.test("an error result's envelope is validated and never forwarded raw", async () => {
  const f = fixture();
  try {
    const bad = await inbound(f.dir, {
      isError: true,
      content: [{ type: "text", text: envelope(f.dir, "secret/s.txt", 10) }],
    });
    assert.equal(bad.isError, true);
    assert.equal(textOf(bad).includes(f.dir), false);
    const good = await inbound(f.dir, {
      isError: true,
      content: [{ type: "text", text: envelope(f.dir, "out/ok.txt", 10) }],
    });
    assert.equal(good.isError, true);
    assert.equal(countRendered(textOf(good)), 1);
    assert.equal(textOf(good).includes(f.dir), false);
  } finally {
    f.rm();
  }
});

Deno.test("a content-less structuredContent envelope is validated like text", async () => {
  const f = fixture();
  try {
    const env = (file: string) => JSON.parse(envelope(f.dir, file, 10));
    const bad = await inbound(f.dir, { content: [], structuredContent: env("secret/s.txt") });
    assert.equal(bad.isError, true);
    assert.equal(JSON.stringify(bad).includes(f.dir), false);
    const good = await inbound(f.dir, { content: [], structuredContent: env("out/ok.txt") });
    assert.equal(good.isError, false);
    assert.equal(good.content[0].type, "text");
    assert.equal(countRendered(textOf(good)), 1);
    assert.equal(JSON.stringify(good).includes(f.dir), false);
    // Plain structured data stays a json block.
    const plain = await inbound(f.dir, { content: [], structuredContent: { n: 1 } });
    assert.deepEqual(plain.content, [{ type: "json", data: { n: 1 } }]);
  } finally {
    f.rm();
  }
});
