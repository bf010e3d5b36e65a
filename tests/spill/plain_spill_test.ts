/**
 * Spill-to-artifact for plain tools (`overflow = "artifact"`): at, below and above 64 KiB;
 * the full cleaned output paged back through get_artifact_field; artifact-marker lines in
 * the preview escaped; nonzero exit; the 16 MiB stream cap; the default `truncate`.
 */

import assert from "node:assert/strict";
import { countRendered } from "../../lib/odek/render.ts";
import { cleanText, decodeLossy, TRUNCATION_MARKER } from "../../lib/text/text_clean.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { SPILL_PREVIEW_BYTES } from "../../lib/spill/spill_result.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const KiB = 1024;

/** 300 KiB of awkward output: escapes, CRLF, invalid UTF-8, multi-byte characters, fake artifact lines. */
function mixed(): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode('[artifact] id="fake" type="text/plain" size=1 bytes\n')];
  let n = 0;
  for (let i = 0; n < 300 * KiB; i++) {
    const p = i % 7 === 0
      ? enc.encode(`\x1b[3${i % 8}mcolour ${i}\x1b[0m\r\n`)
      : i % 11 === 0
      ? new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0x0a])
      : enc.encode(`line ${i} héllo ✓ 𝄞 ${"z".repeat(i % 50)}\n`);
    parts.push(p);
    n += p.byteLength;
  }
  const out = new Uint8Array(parts.reduce((a, p) => a + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const tool = (name: string, args: string[], overflow = 'overflow = "artifact"') =>
  `\n[artifacts.app.views.agent_tools.${name}]\ndescription = "${name}"\nprotocol = "plain"\n` +
  `command = "sh"\nargs = ${JSON.stringify(args)}\n${overflow}\n`;

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n` +
  tool("cat", ["-c", 'cat "data/$0"', "{file}"]).replace(
    'args = ["-c"',
    'input_schema = { type = "object", properties = { file = { type = "string" } }, required = ["file"] }\nargs = ["-c"',
  ) +
  tool("fail", ["-c", "cat data/mixed.bin; exit 3"]) +
  tool("flood", ["-c", "head -c 17000000 /dev/zero"]) +
  tool("plaincat", ["-c", "cat data/mixed.bin"], "");

const BYTES = mixed();
const FILES = {
  "app/README.md": "# app\n",
  "app/data/a65535.txt": "a".repeat(64 * KiB - 1),
  "app/data/a65536.txt": "a".repeat(64 * KiB),
  "app/data/a65537.txt": "a".repeat(64 * KiB + 1),
  "app/data/mixed.bin": BYTES,
};

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

async function open() {
  const tmp = await tempWorkspace(TOML, FILES);
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: `${tmp.root}/.state`,
  });
  return { tmp, reg };
}

/** Spill files of a registry: in its artifact directory's per-tool folders. */
function spillFiles(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].flatMap((e) =>
      e.isDirectory ? [...Deno.readDirSync(`${dir}/${e.name}`)].map((f) => f.name) : [e.name]
    ).filter((n) => n.includes("-output-"));
  } catch {
    return [];
  }
}

async function readAll(reg: Registry, id: string): Promise<string> {
  let out = "";
  let offset = 0;
  for (;;) {
    const r = await reg.call("get_artifact_field", {
      artifact_ref: id,
      field: "content",
      offset,
      max_chars: 100_000,
    });
    const part = (r.content[0] as { data: { content: string; next_offset: number | null } }).data;
    out += part.content;
    if (part.next_offset === null) return out;
    offset = part.next_offset;
  }
}

function artifactId(t: string): string {
  return /\[artifact\] id="([^"]+)"/.exec(t.split("\n").slice(-1)[0])![1];
}

Deno.test("64 KiB - 1 and 64 KiB stay ordinary results; 64 KiB + 1 becomes an artifact", async () => {
  const { tmp, reg } = await open();
  try {
    for (const n of [64 * KiB - 1, 64 * KiB]) {
      const r = await reg.call("cat_app", { file: `a${n}.txt` });
      assert.deepEqual(r, { content: [{ type: "text", text: "a".repeat(n) }], isError: false });
    }
    assert.deepEqual(spillFiles(reg.artifactDir), []);
    const big = await reg.call("cat_app", { file: "a65537.txt" });
    assert.equal(big.isError, false);
    assert.equal(big.content.length, 1);
    const t = text(big);
    assert.ok(t.startsWith("a".repeat(SPILL_PREVIEW_BYTES) + "\n[the output is 65537 bytes"));
    assert.equal(countRendered(t), 1);
    assert.match(
      t,
      /\[artifact\] id="cat_app-output-[0-9a-f]{12}" type="text\/plain" size=65537 bytes sha256=[0-9a-f]{12}/,
    );
    assert.doesNotMatch(t, new RegExp(tmp.root));
    const id = artifactId(t);
    assert.equal(await readAll(reg, id), "a".repeat(64 * KiB + 1));
    const tail = await reg.call("get_artifact_field", {
      artifact_ref: id,
      field: "content",
      offset: 65000,
      max_chars: 1000,
    });
    const part = (tail.content[0] as { data: Record<string, unknown> }).data;
    assert.equal((part.content as string).length, 537);
    assert.equal(part.has_more, false);
    assert.deepEqual(spillFiles(reg.artifactDir).length, 1);
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("the artifact holds the whole cleaned output; marker-like lines are escaped", async () => {
  const { tmp, reg } = await open();
  try {
    const r = await reg.call("cat_app", { file: "mixed.bin" });
    const t = text(r);
    assert.ok(t.startsWith('\\[artifact] id="fake"'));
    assert.equal(countRendered(t), 1);
    assert.equal(await readAll(reg, artifactId(t)), cleanText(decodeLossy(BYTES)));
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("a nonzero exit keeps its artifact and is an error; past 16 MiB no file, 64 KiB text", async () => {
  const { tmp, reg } = await open();
  try {
    const failed = await reg.call("fail_app", {});
    assert.equal(failed.isError, true);
    assert.equal(countRendered(text(failed)), 1);
    // Past the 16 MiB stream cap the output is incomplete: no artifact, the seed's
    // 64 KiB text with its truncation marker.
    const flood = await reg.call("flood_app", {});
    assert.equal(flood.isError, false);
    assert.ok(text(flood).endsWith("[output truncated at 64 KiB]"));
    assert.equal(spillFiles(reg.artifactDir).length, 1); // only fail_app's
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});

Deno.test("the default (truncate) cuts at 64 KiB with the marker and writes nothing", async () => {
  const { tmp, reg } = await open();
  try {
    const t = text(await reg.call("plaincat_app", {}));
    assert.ok(t.endsWith(TRUNCATION_MARKER));
    assert.equal(new TextEncoder().encode(t).length, 64 * KiB);
    assert.deepEqual(spillFiles(reg.artifactDir), []);
  } finally {
    await reg.close();
    await tmp.cleanup();
  }
});
