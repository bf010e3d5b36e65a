/**
 * testSession runs a `.ts` harness on the Deno running the test (its own path, never a
 * `deno` looked up on PATH), a JavaScript one with `node`, and under Node.js refuses a
 * `.ts` harness with an error saying what to do.
 */

import assert from "node:assert/strict";
import { harnessCommand, LAUNCHER_PATH, viaLauncher } from "../../harness-kit/harness_command.ts";
import { InvocationError } from "../../lib/errors/errors.ts";

const KIT = new URL("../../harness-kit/mod.ts", import.meta.url).pathname;
const HARNESS = new URL("./fixtures/kv_harness.ts", import.meta.url).pathname;

Deno.test("harnessCommand: .ts on this Deno by its path; .mjs on node; .ts under Node refused", () => {
  const deno = { name: "deno", execPath: "/opt/deno/bin/deno" } as const;
  const node = { name: "node", execPath: "/opt/node/bin/node" } as const;
  assert.deepEqual(harnessCommand("/w/h.ts", "start", deno), {
    command: "/opt/deno/bin/deno",
    args: ["run", "-A", "--no-config", "--quiet", "/w/h.ts", "start"],
  });
  assert.deepEqual(harnessCommand("/w/h.mjs", "stop", node), {
    command: "/opt/node/bin/node",
    args: ["/w/h.mjs", "stop"],
  });
  assert.deepEqual(harnessCommand("/w/h.mjs", "act", deno), {
    command: "node",
    args: ["/w/h.mjs", "act"],
  });
  assert.throws(
    () => harnessCommand("/secret/dir/h.ts", "start", node),
    (e: unknown) =>
      e instanceof InvocationError && e.code === "INVALID_INVOCATION" &&
      /h\.ts is TypeScript, which Node\.js cannot run/.test(e.message) &&
      /Run the test under Deno/.test(e.message) && /\.mjs/.test(e.message) &&
      !e.message.includes("/secret/dir"),
  );
  // A manifest command is never absolute: an absolute one runs through a launcher script.
  assert.deepEqual(viaLauncher({ command: "node", args: ["h.mjs"] }), {
    command: "node",
    args: ["h.mjs"],
  });
  assert.deepEqual(viaLauncher({ command: "/o'k/deno", args: ["run"] }), {
    command: LAUNCHER_PATH,
    args: ["run"],
    launcher: `#!/bin/sh\nexec '/o'\\''k/deno' "$@"\n`,
  });
  // By default, the runtime this test runs on: Deno, by its own path.
  assert.equal(harnessCommand("/w/h.ts", "start").command, Deno.execPath());
});

Deno.test("testSession runs a .ts harness with no deno on PATH", async () => {
  // A child test process whose PATH holds no deno: a bare `deno` would fail to start.
  const script = `
    import { testSession } from ${JSON.stringify(KIT)};
    await using s = await testSession({
      harness: ${JSON.stringify(HARNESS)},
      actions: { set: { properties: { key: { type: "string" }, value: { type: "string" } } } },
    });
    const r = await s.call("set", { key: "a", value: "1" });
    console.log(JSON.stringify(r));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", new URL("../../deno.json", import.meta.url).pathname, script],
    env: { PATH: "/usr/bin:/bin" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
    content: [{ type: "text", text: "stored a" }],
    isError: false,
  });
});
