import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testSession } from "../../harness-kit/mod.ts";
import { isRunning } from "../sessions/_helpers.ts";

const HARNESS = new URL("./fixtures/kv_harness.ts", import.meta.url).pathname;
const ACTIONS = {
  set: { properties: { key: { type: "string" }, value: { type: "string" } } },
  get: { properties: { key: { type: "string" } } },
  fail: {},
};

Deno.test("sessionHarness: actions share the start process's state; stop runs on close", async () => {
  const markDir = mkdtempSync(join(tmpdir(), "toolhost-kit-mark-"));
  const mark = join(markDir, "mark");
  Deno.env.set("HARNESS_KIT_TEST_MARK", mark);
  try {
    const s = await testSession({ harness: HARNESS, actions: ACTIONS });
    let pid = 0;
    try {
      assert.equal(s.sessionDir, undefined, "the session started before the first call");
      assert.deepEqual(await s.call("set", { key: "a", value: "1" }), {
        content: [{ type: "text", text: "stored a" }],
        isError: false,
      });
      const got = await s.call("get", { key: "a" });
      const data =
        (got.content[0] as { data: { value: string; pid: number; sessionDir: string } }).data;
      assert.equal(data.value, "1");
      assert.equal(data.sessionDir, s.sessionDir);
      assert.ok(existsSync(join(s.sessionDir!, "harness.sock")));
      pid = data.pid;
      assert.ok(isRunning(pid));
      const again = await s.call("get", { key: "a" });
      assert.equal(
        (again.content[0] as { data: { pid: number } }).data.pid,
        pid,
        "a second harness served",
      );
      assert.deepEqual(await s.call("fail"), {
        content: [{ type: "text", text: "The store is read-only today." }],
        isError: true,
      });
      const invalid = await s.call("set", { key: "a" });
      assert.match(JSON.stringify(invalid), /The arguments were invalid: \/value: is required/);
    } finally {
      await s.close();
    }
    assert.equal(readFileSync(mark, "utf8"), "stopped\n");
    assert.equal(isRunning(pid), false);
  } finally {
    Deno.env.delete("HARNESS_KIT_TEST_MARK");
    rmSync(markDir, { recursive: true, force: true });
  }
});

Deno.test("sessionHarness: SIGTERM runs the author's stop when toolhost's stop is missing", async () => {
  const markDir = mkdtempSync(join(tmpdir(), "toolhost-kit-mark-"));
  const mark = join(markDir, "mark");
  Deno.env.set("HARNESS_KIT_TEST_MARK", mark);
  try {
    const harness = ["run", "-A", "--no-config", "--quiet", HARNESS];
    const s = await testSession({
      start: { command: "deno", args: [...harness, "start"] },
      stop: { command: "true", args: [] },
      tools: { get: { command: "deno", args: [...harness, "get"] } },
    });
    try {
      assert.equal((await s.call("get", { key: "x" })).isError, false);
    } finally {
      await s.close();
    }
    assert.equal(readFileSync(mark, "utf8"), "stopped\n");
  } finally {
    Deno.env.delete("HARNESS_KIT_TEST_MARK");
    rmSync(markDir, { recursive: true, force: true });
  }
});
