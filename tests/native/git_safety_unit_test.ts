import assert from "node:assert/strict";
import {
  checkConfigListing,
  configKeys,
  GIT_SAFE_CONFIG,
  gitSafeEnv,
  safeConfigListing,
  unsafeConfigFamily,
} from "../../lib/native/git_safety.ts";

Deno.test("git safety: key families, listing parsing, refusal messages", () => {
  assert.equal(unsafeConfigFamily("filter.lfs.clean"), "filter.<driver>.clean");
  assert.equal(unsafeConfigFamily("filter.a.b.process"), "filter.<driver>.process");
  assert.equal(unsafeConfigFamily("filter.lfs.required"), null);
  assert.equal(unsafeConfigFamily("filter.clean"), null);
  assert.equal(unsafeConfigFamily("diff.x.textconv"), "diff.<driver>.textconv");
  assert.equal(unsafeConfigFamily("diff.x.xfuncname"), null);
  assert.equal(unsafeConfigFamily("diff.external"), null); // overridden on the command line
  assert.equal(unsafeConfigFamily("include.path"), "include.path");
  assert.equal(unsafeConfigFamily("includeif.gitdir:/x.path"), "includeIf.<condition>.path");
  assert.equal(unsafeConfigFamily("hook.a.command"), "hook.<name>.*");
  assert.equal(unsafeConfigFamily("core.bare"), null);
  assert.deepEqual(configKeys("a.b\nc\0flag.x\0\0"), ["a.b", "flag.x"]);
  checkConfigListing(
    safeConfigListing(["core.bare\nfalse", "remote.origin.url\next::x"]),
    false,
    "app",
  );
  assert.throws(() => checkConfigListing("", true, "app"), /too large to check/);
  assert.throws(
    () =>
      checkConfigListing(safeConfigListing(["filter.secret-name.clean\nrm -rf /"]), false, "app"),
    (e: Error) => !e.message.includes("secret-name") && !e.message.includes("rm -rf"),
  );
  const env = gitSafeEnv({ PATH: "/bin", HOME: "/h", GIT_DIR: "/x", GIT_EXTERNAL_DIFF: "y" }, "/t");
  assert.equal(env.GIT_DIR, undefined);
  assert.equal(env.GIT_EXTERNAL_DIFF, undefined);
  assert.equal(env.GIT_ALLOW_PROTOCOL, "");
});

Deno.test("git safety: a listing without every setting toolhost passes git is refused, never taken as safe", () => {
  // Lost output (empty), a listing cut before git's command-line settings, or one that
  // lacks any of them: not read whole, so not known to be safe.
  assert.throws(() => checkConfigListing("", false, "app"), /could not be read whole/);
  assert.throws(
    () => checkConfigListing("core.bare\nfalse\0", false, "app"),
    /could not be read whole/,
  );
  const whole = safeConfigListing(["core.bare\nfalse"]);
  for (let cut = 0; cut < whole.length - 1; cut++) { // all but the last NUL
    assert.throws(() => checkConfigListing(whole.slice(0, cut), false, "app"), /read whole|sets/);
  }
  checkConfigListing(whole, false, "app");
  // The listing git really prints with those settings passes.
  const real = new Deno.Command("git", {
    args: [...GIT_SAFE_CONFIG, "config", "--list", "-z", "--no-includes"],
    cwd: Deno.makeTempDirSync(),
    env: { HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1", PATH: "/usr/bin:/bin" },
    clearEnv: true,
  }).outputSync();
  assert.equal(real.code, 0);
  checkConfigListing(new TextDecoder().decode(real.stdout), false, "app");
});
