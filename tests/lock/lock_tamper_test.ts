/**
 * A tampered `toolhost.lock` fails closed: a key given twice in one object (JSON.parse
 * would keep the last one, while a reviewer reading the file or its diff may take the
 * first for what is locked) and bytes that are not UTF-8 (decoded lossily, two different
 * files would read the same) are refused, naming the problem, never quoting content.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { LockMismatch } from "../../lib/lock/errors.ts";
import { parseLockFile, readLockFile } from "../../lib/lock/lock_file.ts";

const HASH = "a".repeat(64);
const OTHER = "b".repeat(64);

function lockText(programs: string): string {
  return `{
  "evals": {
    "app/review": {
      "declaration": {},
      "extensions": {},
      "programs": ${programs},
      "sessions": {},
      "tools": {}
    }
  },
  "lockfileVersion": 2
}
`;
}

Deno.test("a lock holding one key twice is refused, at any depth, however spelled", () => {
  const pin = (h: string) => `{ "path": "/bin/sh", "sha256": "${h}" }`;
  // Sanity: the same lock without the duplicate parses.
  parseLockFile(lockText(`{ "hook": ${pin(HASH)} }`));
  const cases = [
    lockText(`{ "hook": ${pin(HASH)}, "hook": ${pin(OTHER)} }`),
    lockText(`{ "hook": { "path": "/bin/sh", "sha256": "${HASH}", "sha256": "${OTHER}" } }`),
    // The same key once escaped: JSON.parse reads both as `hook`.
    lockText(`{ "hook": ${pin(HASH)}, "\\u0068ook": ${pin(OTHER)} }`),
    `{"evals": {}, "evals": {}, "lockfileVersion": 2}`,
  ];
  for (const text of cases) {
    assert.throws(() => parseLockFile(text), (e) => {
      assert.ok(e instanceof LockMismatch);
      assert.match(e.message, /twice/);
      assert.doesNotMatch(e.message, /aaaa|bbbb/);
      return true;
    });
  }
  // The same name in different objects, and in strings that are values, is fine.
  parseLockFile(
    lockText(`{ "hook": { "path": "hook", "sha256": "${HASH}" }, "x": ${pin(HASH)} }`),
  );
});

Deno.test("a lock that is not UTF-8 is refused, not decoded lossily", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pin = `{ "path": "/bin/sh", "sha256": "${HASH}" }`;
    const good = new TextEncoder().encode(lockText(`{ "hXk": ${pin} }`));
    await Deno.writeFile(join(dir, "toolhost.lock"), good);
    assert.ok(await readLockFile({ root: dir }));
    const bad = good.map((b) => b === 0x58 ? 0xff : b); // the X in a key: not UTF-8
    await Deno.writeFile(join(dir, "toolhost.lock"), bad);
    await assert.rejects(() => readLockFile({ root: dir }), (e) => {
      assert.ok(e instanceof LockMismatch);
      assert.match(e.message, /UTF-8/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
