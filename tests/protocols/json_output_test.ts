import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeJsonValue, NOT_JSON } from "../../lib/protocols/json_output.ts";
import { invokeJsonCommand } from "../../lib/protocols/invoke.ts";
import { LIMITS } from "../../lib/results/types.ts";
import { assertPidsDead, ENV, withStateDir } from "../process/helpers.ts";
import { assertError, assertInvalid, callJson } from "./helpers.ts";

const KiB = 1024;
const emit = (mode: string, n?: number) =>
  callJson("json_emit.sh", n === undefined ? [mode] : [mode, String(n)]);
const bad = (mode: string, extra = {}) => callJson("misbehave.sh", [mode], extra);

Deno.test("a well-formed result is normalized with isError false", async () => {
  assert.deepEqual(await emit("ok"), {
    content: [{ type: "text", text: "hello" }],
    isError: false,
  });
  assert.deepEqual(await emit("ok_all"), {
    content: [{ type: "text", text: "a" }, { type: "json", data: { k: [1, null, "x"] } }],
    isError: false,
  });
  assert.deepEqual(await emit("json_null"), {
    content: [{ type: "json", data: null }],
    isError: false,
  });
});

Deno.test("block count: 1 and 32 are fine, 0 and 33 are invalid", async () => {
  assert.equal((await emit("blocks", 1)).content.length, 1);
  assert.equal((await emit("blocks", 31)).content.length, 31);
  const full = await emit("blocks", 32);
  assert.equal(full.isError, false);
  assert.equal(full.content.length, 32);
  assertInvalid(await emit("blocks", 33), /`content` must be an array of 1 to 32 blocks/);
  assertInvalid(await emit("empty_content"), /1 to 32 blocks/);
});

Deno.test("text blocks: 64 KiB is fine, one byte more is invalid (UTF-8 bytes)", async () => {
  for (const n of [64 * KiB - 1, 64 * KiB]) {
    const r = await emit("text", n);
    assert.equal(r.isError, false);
    assert.equal(r.content[0].type === "text" && r.content[0].text.length, n);
  }
  assertInvalid(
    await emit("text", 64 * KiB + 1),
    /content block 1: the text is larger than 64 KiB/,
  );
  assert.equal((await emit("text_multibyte", 32 * KiB)).isError, false);
  assertInvalid(await emit("text_multibyte", 32 * KiB + 1), /larger than 64 KiB/);
});

Deno.test("json blocks: 512 KiB compact is fine, one byte more is invalid", async () => {
  assert.equal((await emit("json", 512 * KiB - 1)).isError, false);
  assert.equal((await emit("json", 512 * KiB)).isError, false);
  assertInvalid(
    await emit("json", 512 * KiB + 1),
    /content block 1: the json data is larger than 512 KiB/,
  );
  // Whitespace in the tool's output does not count: the limit is on compact JSON.
  assert.deepEqual((await emit("json_spaced", 600 * KiB)).content, [{
    type: "json",
    data: [1, 2],
  }]);
});

Deno.test("the normalized result may be 8 MiB but not one byte more", async () => {
  const sized = (extra: number) => {
    const blocks = Array.from(
      { length: 17 },
      () => ({ type: "json", data: "a".repeat(480 * KiB) }),
    );
    const base = JSON.stringify({ content: blocks, isError: false }).length;
    const last = blocks[16].data.length + (LIMITS.maxResultBytes - base) + extra;
    blocks[16] = { type: "json", data: "a".repeat(last) };
    return { content: blocks };
  };
  const at = await normalizeJsonValue(sized(0), "/nonexistent");
  assert.equal(at.isError, false);
  assert.equal(JSON.stringify(at).length, LIMITS.maxResultBytes);
  assert.equal((await normalizeJsonValue(sized(-1), "/nonexistent")).isError, false);
  assertInvalid(await normalizeJsonValue(sized(1), "/nonexistent"), /larger than 8 MiB/);
  // Over 8 MiB on stdout already: refused by the pre-check, before parsing.
  assertInvalid(await emit("big_result"), /the result is larger than 8 MiB/);
});

Deno.test("extra fields on the result or a block are invalid output", async () => {
  assertInvalid(await emit("extra_result"), /the result allows only `content` and `isError`/);
  assertInvalid(
    await emit("extra_text"),
    /content block 1: text blocks allow only `type` and `text`/,
  );
  assertInvalid(
    await emit("extra_json"),
    /content block 1: json blocks allow only `type` and `data`/,
  );
  assertInvalid(await emit("json_no_data"), /json blocks need `data`/);
  assertInvalid(await emit("unknown_type"), /`type` must be text, json or image/);
  assertInvalid(await emit("text_not_string"), /`text` must be a string/);
  assertInvalid(await emit("no_content"), /1 to 32 blocks/);
  assertInvalid(await emit("is_error_string"), /`isError` must be a boolean/);
  assertInvalid(await emit("array"), /the result must be a JSON object/);
  const r = await emit("extra_result");
  assert.equal(JSON.stringify(r).includes("meta"), false, "no tool-chosen names in messages");
});

Deno.test("authored errors need exactly one nonblank text block and pass unchanged", async () => {
  assert.deepEqual(await emit("error_ok"), {
    content: [{ type: "text", text: "Choose a smaller range." }],
    isError: true,
  });
  const rule = /exactly one nonblank text block/;
  assertInvalid(await emit("error_two"), rule);
  assertInvalid(await emit("error_blank"), rule);
  assertInvalid(await emit("error_json"), rule);
});

Deno.test("unparseable output gives generic errors that say what happened", async () => {
  assertError(await emit("not_json"), NOT_JSON);
  assertError(await emit("truncated"), NOT_JSON);
  assertError(await emit("two_objects"), NOT_JSON);
  assertError(await emit("bom"), NOT_JSON);
  assertError(await emit("empty"), /printed nothing/);
  assertError(await bad("invalid_utf8"), "The tool's output was not valid UTF-8.");
  assertError(await bad("garbage"), "The tool's output was not valid UTF-8.");
});

Deno.test("process failures give generic errors", async () => {
  assertError(await emit("exit3"), "The tool exited with status 3.");
  assertError(await bad("kill_self"), "The tool was killed by signal SIGKILL.");
  assertError(await bad("sleep", { timeoutMs: 200 }), "The tool timed out after 200 ms.");
  assertError(await bad("forever"), "The tool's output exceeded the 16 MiB limit.");
  assertError(await bad("stderr_forever"), "The tool's error output exceeded the 16 MiB limit.");
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  assertError(await bad("sleep", { signal: ac.signal }), "The tool call was cancelled.");
  const pre = new AbortController();
  pre.abort();
  assertError(await bad("sleep", { signal: pre.signal }), "The tool call was cancelled.");
});

Deno.test("a command that cannot be started leaves no call directory", async () => {
  await withStateDir(async (stateDir) => {
    const r = await invokeJsonCommand({
      command: "/nonexistent/tool",
      argv: [],
      cwd: "/",
      stateDir,
      baseEnv: ENV,
      context: { artifactId: "fx", artifactPath: "/", scope: {} },
      args: {},
    });
    assertError(r, "The tool could not be started: its command was not found.");
  });
});

Deno.test("children left behind by a successful tool are killed; result unaffected", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-pids-"));
  try {
    const pidFile = join(dir, "pids");
    const r = await callJson("misbehave.sh", ["detach", pidFile], { graceMs: 100 });
    assert.deepEqual(r, {
      content: [{ type: "text", text: "left children behind" }],
      isError: false,
    });
    assertPidsDead(readFileSync(pidFile, "utf8").trim().split("\n").map(Number));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("the tool runs in the given cwd", async () => {
  const r = await callJson("misbehave.sh", ["pwd"], { cwd: "/" });
  assert.deepEqual(r.content, [{ type: "text", text: "/" }]);
});
