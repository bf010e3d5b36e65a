import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { definePlugin } from "../../lib/plugins/mod.ts";
import { BASE, errText, open, text } from "./_helpers.ts";

const AUDITED = `${BASE}
[plugins]
enable = ["audit-log"]
`;

/** Fails every `read_app` call, so the host writes to plugins.log. */
const failing = definePlugin({
  name: "failing",
  setup(api) {
    api.beforeCall((c) => {
      if (c.tool === "read_app") throw new Error("hook failure");
    });
  },
});

function outside(): { dir: string; file: string; done(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "th-outside-"));
  const file = path.join(dir, "victim");
  fs.writeFileSync(file, "");
  return { dir, file, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function calls(w: Awaited<ReturnType<typeof open>>): Promise<void> {
  assert.match(errText(await w.reg.call("read_app", { path: "README.md" })), /failed/);
  assert.equal(text(await w.reg.call("mark_app", {})), "ran", "calls go on");
}

Deno.test("plugins.log and audit.log are never written through a symbolic link", async () => {
  const o = outside();
  const w = await open(AUDITED, { plugins: [failing] });
  try {
    fs.mkdirSync(w.stateDir, { recursive: true });
    fs.symlinkSync(o.file, path.join(w.stateDir, "plugins.log"));
    fs.symlinkSync(o.file, path.join(w.stateDir, "audit.log"));
    await calls(w);
    assert.equal(fs.readFileSync(o.file, "utf8"), "", "nothing reached the link's target");
  } finally {
    await w.cleanup();
    o.done();
  }
});

Deno.test("a hard-linked log file is refused", async () => {
  const o = outside();
  const w = await open(AUDITED, { plugins: [failing] });
  try {
    fs.mkdirSync(w.stateDir, { recursive: true });
    fs.linkSync(o.file, path.join(w.stateDir, "plugins.log"));
    fs.linkSync(o.file, path.join(w.stateDir, "audit.log"));
    await calls(w);
    assert.equal(fs.readFileSync(o.file, "utf8"), "");
  } finally {
    await w.cleanup();
    o.done();
  }
});

Deno.test("a symbolic-link state directory gets no log files", async () => {
  const o = outside();
  const w = await open(AUDITED, { plugins: [failing] });
  try {
    fs.rmSync(w.stateDir, { recursive: true, force: true });
    fs.symlinkSync(o.dir, w.stateDir);
    await calls(w);
    // (call and artifact directories are the runtime's: not checked here)
    const made = fs.readdirSync(o.dir);
    assert.ok(!made.includes("plugins.log") && !made.includes("audit.log"), made.join(","));
  } finally {
    await w.cleanup();
    o.done();
  }
});

Deno.test("a regular state directory still gets both logs", async () => {
  const w = await open(AUDITED, { plugins: [failing] });
  try {
    await calls(w);
    assert.ok(fs.readFileSync(path.join(w.stateDir, "plugins.log"), "utf8").includes("failing"));
    assert.equal(fs.readFileSync(path.join(w.stateDir, "audit.log"), "utf8").split("\n").length, 3);
  } finally {
    await w.cleanup();
  }
});
