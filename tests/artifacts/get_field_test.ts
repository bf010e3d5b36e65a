/** get_artifact_field per seed 003: fields, paging boundaries, refusals, binary, changes. */

import assert from "node:assert/strict";
import {
  ArtifactStore,
  DEFAULT_MAX_CHARS,
  getArtifactField,
  readArtifactText,
} from "../../lib/artifacts/mod.ts";
import { LIMITS } from "../../lib/results/types.ts";
import { data, errorText, makeStore } from "./_store.ts";

const TEXT = "abcdefghijklmnopqrstuvwxy"; // 25 units

Deno.test("fields in snake_case and camelCase, content read on demand", async () => {
  const t = await makeStore([
    {
      id: "r1",
      content: TEXT,
      media_type: "application/json",
      summary: "S",
      withSha: true,
      withSize: true,
    },
  ]);
  try {
    const get = async (field: string) =>
      data(await t.store.getField({ artifact_ref: "r1", field }));
    assert.equal((await get("media_type")).content, "application/json");
    assert.equal((await get("mediaType")).content, "application/json");
    assert.equal((await get("sizeBytes")).content, "25");
    assert.equal((await get("size_bytes")).field, "size_bytes");
    assert.equal((await get("sha256")).content, t.refs.get("r1")!.sha256);
    assert.equal((await get("summary")).content, "S");
    assert.equal((await get("id")).content, "r1");
    assert.equal((await get("schema")).content, "odek.artifact-ref/v1");
    assert.deepEqual(await get("content"), {
      artifact_ref: "r1",
      field: "content",
      content: TEXT,
      offset: 0,
      total_length: 25,
      has_more: false,
      next_offset: null,
    });
  } finally {
    await t.cleanup();
  }
});

Deno.test("unknown reference: ResourceNotFoundException, no other artifact's content", async () => {
  const t = await makeStore([{ id: "r1", content: TEXT }]);
  try {
    for (const ref of ["r2", "R1", "r1 ", "f0"]) {
      const msg = errorText(await t.store.getField({ artifact_ref: ref, field: "content" }));
      assert.ok(msg.startsWith("ResourceNotFoundException:"), msg);
      assert.ok(!msg.includes(TEXT) && !msg.includes(ref), "no content, no echo of the ref");
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("unknown field (uri and path included): InvalidInputException listing fields", async () => {
  const t = await makeStore([{ id: "r1", content: TEXT }]);
  try {
    for (const field of ["uri", "path", "bogus", "media__type", "MEDIA TYPE"]) {
      const msg = errorText(await t.store.getField({ artifact_ref: "r1", field }));
      assert.ok(msg.startsWith("InvalidInputException:"), msg);
      assert.match(msg, /id, schema, media_type, sha256, size_bytes, summary, content/);
      assert.ok(!msg.includes(t.dir));
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("a field the ref does not carry returns no content", async () => {
  const t = await makeStore([{ id: "r1", content: TEXT }]);
  try {
    for (const field of ["summary", "sha256", "sizeBytes"]) {
      const d = data(await t.store.getField({ artifact_ref: "r1", field }));
      assert.equal(d.content, null, field);
      assert.equal(d.total_length, 0);
      assert.equal(d.has_more, false);
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("offset boundaries: at the end gives empty, past the end is refused", async () => {
  const t = await makeStore([{ id: "r1", content: TEXT }]);
  try {
    const get = (args: Record<string, unknown>) =>
      t.store.getField({ artifact_ref: "r1", field: "content", ...args });
    const at24 = data(await get({ offset: 24 }));
    assert.equal(at24.content, "y");
    assert.equal(at24.has_more, false);
    const at25 = data(await get({ offset: 25 }));
    assert.equal(at25.content, "");
    assert.equal(at25.has_more, false);
    assert.equal(at25.total_length, 25);
    assert.match(errorText(await get({ offset: 26 })), /^InvalidInputException: .*length is 25/);
    assert.match(errorText(await get({ offset: -1 })), /^InvalidInputException:/);
    assert.match(errorText(await get({ offset: 1.5 })), /^InvalidInputException:/);
    assert.match(errorText(await get({ offset: "1" })), /^InvalidInputException:/);
  } finally {
    await t.cleanup();
  }
});

Deno.test("max_chars boundaries and paging part by part", async () => {
  const t = await makeStore([{ id: "r1", content: TEXT }]);
  try {
    const get = (args: Record<string, unknown>) =>
      t.store.getField({ artifact_ref: "r1", field: "content", ...args });
    for (
      const [max, len, more] of [[1, 1, true], [24, 24, true], [25, 25, false], [26, 25, false]]
    ) {
      const d = data(await get({ max_chars: max }));
      assert.equal((d.content as string).length, len, String(max));
      assert.equal(d.has_more, more, String(max));
    }
    assert.match(errorText(await get({ max_chars: 0 })), /^InvalidInputException:/);
    let offset = 0;
    let text = "";
    for (let guard = 0; guard < 10; guard++) {
      const d = data(await get({ offset, max_chars: 10 }));
      text += d.content as string;
      if (!d.has_more) break;
      offset = d.next_offset as number;
    }
    assert.equal(text, TEXT);
  } finally {
    await t.cleanup();
  }
});

Deno.test("default max_chars is 10,000: one below, at and above", async () => {
  assert.equal(DEFAULT_MAX_CHARS, 10000);
  const t = await makeStore([
    { id: "a", content: "x".repeat(9999) },
    { id: "b", content: "x".repeat(10000) },
    { id: "c", content: "x".repeat(10001) },
  ]);
  try {
    for (const [id, len, more] of [["a", 9999, false], ["b", 10000, false], ["c", 10000, true]]) {
      const d = data(await t.store.getField({ artifact_ref: id, field: "content" }));
      assert.equal((d.content as string).length, len);
      assert.equal(d.has_more, more);
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("a part never ends inside a surrogate pair", async () => {
  const t = await makeStore([{ id: "e", content: "a😀b" }]);
  try {
    const d = data(await t.store.getField({ artifact_ref: "e", field: "content", max_chars: 2 }));
    assert.equal(d.content, "a");
    assert.equal(d.next_offset, 1);
    const d2 = data(
      await t.store.getField({ artifact_ref: "e", field: "content", offset: 1, max_chars: 2 }),
    );
    assert.equal(d2.content, "😀");
  } finally {
    await t.cleanup();
  }
});

Deno.test("a huge max_chars still yields a json block within 512 KiB", async () => {
  const t = await makeStore([{ id: "big", content: "\u0001".repeat(300_000) }]);
  try {
    const d = data(
      await t.store.getField({ artifact_ref: "big", field: "content", max_chars: 10_000_000 }),
    );
    assert.ok(new TextEncoder().encode(JSON.stringify(d)).length <= LIMITS.maxJsonBytes);
    assert.equal(d.has_more, true);
    assert.equal(d.next_offset, (d.content as string).length);
    assert.equal(d.total_length, 300_000);
  } finally {
    await t.cleanup();
  }
});

Deno.test("binary content is refused as binary", async () => {
  const t = await makeStore([
    { id: "nul", content: new Uint8Array([0x61, 0x00, 0x62]), summary: "ok" },
    { id: "bad", content: new Uint8Array([0x61, 0xff, 0x62]) },
    { id: "png", content: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  ]);
  try {
    for (const id of ["nul", "bad", "png"]) {
      const msg = errorText(await t.store.getField({ artifact_ref: id, field: "content" }));
      assert.match(msg, /^InvalidInputException: .*binary/, id);
    }
    assert.equal(
      data(await t.store.getField({ artifact_ref: "nul", field: "summary" })).content,
      "ok",
    );
  } finally {
    await t.cleanup();
  }
});

Deno.test("content of a file changed or removed after validation is refused", async () => {
  const t = await makeStore([
    { id: "same-size", content: "aaaa", withSha: true },
    { id: "replaced", content: "bbbb" },
    { id: "grown", content: "cccc" },
    { id: "gone", content: "dddd" },
    { id: "symlinked", content: "eeee" },
  ]);
  try {
    await Deno.writeTextFile(`${t.dir}/f0`, "AAAA"); // same inode and size, new bytes
    await Deno.writeTextFile(`${t.dir}/new`, "BBBB");
    await Deno.rename(`${t.dir}/new`, `${t.dir}/f1`);
    await Deno.writeTextFile(`${t.dir}/f2`, "c", { append: true });
    await Deno.remove(`${t.dir}/f3`);
    await Deno.rename(`${t.dir}/f4`, `${t.dir}/f4real`);
    await Deno.symlink(`${t.dir}/f4real`, `${t.dir}/f4`);
    for (const id of ["same-size", "replaced", "grown", "gone", "symlinked"]) {
      const msg = errorText(await t.store.getField({ artifact_ref: id, field: "content" }));
      assert.match(msg, /^SystemException: .*changed or disappeared/, id);
      assert.ok(!msg.includes(t.dir));
    }
  } finally {
    await t.cleanup();
  }
});

Deno.test("argument refusals: not an object, unknown key, missing or empty strings", async () => {
  const store = new ArtifactStore();
  for (
    const args of [
      null,
      [],
      "x",
      {},
      { artifact_ref: "r" },
      { field: "id" },
      { artifact_ref: "", field: "id" },
      { artifact_ref: "r", field: 5 },
      { artifact_ref: "r", field: "id", extra: 1 },
    ]
  ) {
    assert.match(errorText(await getArtifactField(store, args)), /^InvalidInputException:/);
  }
});

Deno.test("store: list() exposes no uri or path; same id replaces; add needs an id", async () => {
  const t = await makeStore([{ id: "r1", content: "one" }, { id: "r1", content: "two" }]);
  try {
    assert.equal(t.store.size, 1);
    assert.ok(!JSON.stringify(t.store.list()).includes(t.dir));
    assert.ok(!JSON.stringify(t.store.list()).includes("file:"));
    assert.equal(
      data(await t.store.getField({ artifact_ref: "r1", field: "content" })).content,
      "two",
    );
    assert.throws(() => t.store.add({ ...t.refs.get("r1")!, id: "" }, "/x"));
    t.store.clear();
    assert.equal(t.store.size, 0);
  } finally {
    await t.cleanup();
  }
});

Deno.test("readArtifactText without identity still refuses symlinks and oversize refs", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/a`, "text");
    await Deno.symlink(`${dir}/a`, `${dir}/l`);
    const ref = {
      schema: "odek.artifact-ref/v1",
      id: "a",
      uri: "file:///x",
      media_type: "text/plain",
    };
    assert.equal(await readArtifactText({ ref, path: `${dir}/a` }), "text");
    await assert.rejects(readArtifactText({ ref, path: `${dir}/l` }), {
      name: "ContentUnavailable",
    });
    await assert.rejects(readArtifactText({ ref: { ...ref, size_bytes: 3 }, path: `${dir}/a` }), {
      name: "ContentUnavailable",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
