import assert from "node:assert/strict";
import { PathError } from "../../lib/errors/errors.ts";
import {
  childLogical,
  joinLogical,
  MAX_LOGICAL_PATH_UNITS,
  validateLogicalPath,
} from "../../lib/paths/logical.ts";

function rejects(p: unknown, opts = {}): string {
  try {
    validateLogicalPath(p, opts);
  } catch (e) {
    assert.ok(e instanceof PathError);
    assert.equal(e.code, "PATH_ERROR");
    return e.message;
  }
  assert.fail(`accepted ${JSON.stringify(p)}`);
}

Deno.test("logical paths split into components", () => {
  assert.deepEqual(validateLogicalPath("a"), ["a"]);
  assert.deepEqual(validateLogicalPath("rules/requirements.md"), ["rules", "requirements.md"]);
  assert.deepEqual(validateLogicalPath(".hidden/..x/x..", {}), [".hidden", "..x", "x.."]);
  assert.deepEqual(validateLogicalPath("~/notes"), ["~", "notes"]); // an ordinary name
  assert.deepEqual(validateLogicalPath("a\u2024\u2024/b"), ["a\u2024\u2024", "b"]);
  assert.deepEqual(validateLogicalPath("\u2024\u2024\uff0fetc"), ["\u2024\u2024\uff0fetc"]);
});

Deno.test("length boundary: 4096 UTF-16 code units accepted, 4097 rejected", () => {
  assert.equal(MAX_LOGICAL_PATH_UNITS, 4096);
  const at = "a/".repeat(2047) + "bb"; // 4096 units
  assert.equal(at.length, 4096);
  assert.equal(validateLogicalPath(at).length, 2048);
  assert.equal(validateLogicalPath("x".repeat(4095)).length, 1);
  assert.match(rejects(at + "b"), /4096/);
  // Counted in UTF-16 code units: 2048 astral characters are 4096 units.
  assert.equal(validateLogicalPath("\u{1F600}".repeat(2048)).length, 1);
  rejects("\u{1F600}".repeat(2048) + "a");
});

Deno.test("controls, backslash, colon, absolute and empty are rejected", () => {
  for (let c = 0; c < 0x20; c++) assert.match(rejects(`a${String.fromCharCode(c)}b`), /control/);
  assert.match(rejects("a\x7fb"), /control/);
  assert.match(rejects("a\0"), /control/);
  assert.match(rejects("a\\b"), /backslash/);
  assert.match(rejects("..\\etc"), /backslash/);
  assert.match(rejects("c:x"), /colon/);
  assert.match(rejects("C:/Windows"), /colon/);
  assert.match(rejects("/etc/passwd"), /absolute/);
  assert.match(rejects("//x"), /absolute/);
  assert.match(rejects(""), /empty/);
  rejects(undefined);
  rejects(42);
});

Deno.test("empty, . and .. components in every position are rejected", () => {
  for (
    const p of ["..", "../a", "a/..", "a/../b", "a/b/..", "../../etc/passwd", "a/./b", "./a", "a/."]
  ) {
    assert.match(rejects(p), /`\.\.?` component|not allowed/);
  }
  for (const p of ["a//b", "a/", "a/b/", "/"]) rejects(p);
});

Deno.test("the lone . is accepted only where allowed", () => {
  assert.deepEqual(validateLogicalPath(".", { allowDotRoot: true }), []);
  assert.match(rejects("."), /not allowed/);
  rejects("./", { allowDotRoot: true });
  rejects("./.", { allowDotRoot: true });
});

Deno.test("messages never quote the rejected value", () => {
  const secret = "s3cr3t-value";
  for (const p of [`${secret}\0`, `${secret}\\x`, `${secret}:x`, `/${secret}`, `${secret}/../x`]) {
    assert.ok(!rejects(p).includes(secret));
  }
});

Deno.test("join helpers", () => {
  assert.equal(joinLogical([]), ".");
  assert.equal(joinLogical(["a", "b"]), "a/b");
  assert.equal(childLogical(".", "x"), "x");
  assert.equal(childLogical("src", "x"), "src/x");
});
