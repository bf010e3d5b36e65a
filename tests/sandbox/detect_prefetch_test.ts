/**
 * `prefetchSandboxSupport()` (the asynchronous probe `tools check` overlaps with loading
 * the workspace) decides exactly what the synchronous `sandboxSupport()` decides, caches
 * the same answer, and never caches an answer made for a configuration since replaced.
 * Fake `bwrap` scripts stand in for the real one, so these run on any Linux host.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  configureSandbox,
  prefetchSandboxSupport,
  type SandboxConfig,
  sandboxSupport,
} from "../../lib/sandbox/detect.ts";

const linux = Deno.build.os === "linux";

/** A fake bwrap that records each run in `<dir>/runs` and exits `code`. */
async function fakeBwrap(dir: string, code: number): Promise<string> {
  const path = `${dir}/bwrap_${code}`;
  await Deno.writeTextFile(path, `#!/bin/sh\necho run >> "${dir}/runs"\nexit ${code}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

async function runs(dir: string): Promise<number> {
  const text = await Deno.readTextFile(`${dir}/runs`).catch(() => "");
  return text.split("\n").filter((l) => l === "run").length;
}

/** The synchronous decision for a config, made fresh. */
function syncDecision(c: SandboxConfig) {
  configureSandbox(c);
  return sandboxSupport();
}

/** The asynchronous decision for a config, made fresh. */
function asyncDecision(c: SandboxConfig) {
  configureSandbox(c);
  return prefetchSandboxSupport();
}

Deno.test("prefetch: the same decision as the synchronous probe, for every outcome", async () => {
  if (!linux) return console.log("SKIP prefetch decisions: fake bwrap scripts need Linux");
  const dir = await Deno.makeTempDir({ prefix: "toolhost_probe_" });
  try {
    const configs: SandboxConfig[] = [
      { bwrap: await fakeBwrap(dir, 0) },
      { bwrap: await fakeBwrap(dir, 1) },
      { bwrap: `${dir}/missing` }, // spawn fails: refused, as with spawnSync
      { platform: "darwin" },
      {}, // this host's real answer (bwrap on PATH or not)
    ];
    for (const c of configs) {
      const want = syncDecision(c);
      assert.deepEqual(await asyncDecision(c), want, JSON.stringify(c));
      assert.deepEqual(sandboxSupport(), want, `cached answer for ${JSON.stringify(c)}`);
    }
    // A failing probe is reported as a refusal, never as confinement that works.
    assert.equal((await asyncDecision({ bwrap: `${dir}/bwrap_1` })).ok, false);
    assert.equal((await asyncDecision({ bwrap: `${dir}/bwrap_0` })).ok, true);
  } finally {
    configureSandbox({});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prefetch: one probe per process; sandboxSupport() after it runs none", async () => {
  if (!linux) return console.log("SKIP prefetch cache: fake bwrap scripts need Linux");
  const dir = await Deno.makeTempDir({ prefix: "toolhost_probe_" });
  try {
    configureSandbox({ bwrap: await fakeBwrap(dir, 0) });
    const [a, b] = await Promise.all([prefetchSandboxSupport(), prefetchSandboxSupport()]);
    assert.equal(a, b);
    assert.equal(sandboxSupport(), a);
    assert.equal(await prefetchSandboxSupport(), a);
    assert.equal(await runs(dir), 1);
  } finally {
    configureSandbox({});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prefetch: an answer for a replaced configuration is never cached", async () => {
  if (!linux) return console.log("SKIP prefetch reconfigure: fake bwrap scripts need Linux");
  const dir = await Deno.makeTempDir({ prefix: "toolhost_probe_" });
  try {
    configureSandbox({ bwrap: await fakeBwrap(dir, 0) });
    const stale = prefetchSandboxSupport();
    configureSandbox({ bwrap: await fakeBwrap(dir, 1) });
    assert.equal((await stale).ok, true); // the old config's answer, to its caller only
    assert.equal(sandboxSupport().ok, false); // the new config probes again and refuses
    assert.equal(await runs(dir), 2);
  } finally {
    configureSandbox({});
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Both decisions for `bwrap`, made in a child whose PATH is `path` (PATH is process-wide:
 * set here, it would be every test file's running meanwhile on other threads).
 */
async function decisionsWithPath(bwrap: string, path: string): Promise<boolean[]> {
  const detect = new URL("../../lib/sandbox/detect.ts", import.meta.url).href;
  const code = `import { configureSandbox, prefetchSandboxSupport, sandboxSupport } from ` +
    `${JSON.stringify(detect)};\n` +
    `configureSandbox({ bwrap: ${JSON.stringify(bwrap)} });\n` +
    `const sync = sandboxSupport().ok;\n` +
    `configureSandbox({ bwrap: ${JSON.stringify(bwrap)} });\n` +
    `console.log(JSON.stringify([sync, (await prefetchSandboxSupport()).ok]));\n`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", "--ext=ts", code],
    env: { PATH: path },
    cwd: "/",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

Deno.test("probe: a PATH without `true` does not pass for unusable user namespaces", async () => {
  if (!linux) return console.log("SKIP probe PATH: needs Linux");
  const real = syncDecision({});
  configureSandbox({});
  if (!real.ok) return console.log(`SKIP probe PATH: no working bubblewrap here (${real.reason})`);
  // bwrap itself is still found in /usr/bin or /bin; `true` only by the probe's own lookup.
  assert.deepEqual(await decisionsWithPath(real.bwrap!, "/nonexistent-toolhost-path"), [
    true,
    true,
  ]);
});
