import assert from "node:assert/strict";
import {
  checkConfigListing,
  configKeys,
  gitSafeEnv,
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
  checkConfigListing("core.bare\nfalse\0remote.origin.url\next::x\0", false, "app");
  assert.throws(() => checkConfigListing("", true, "app"), /too large to check/);
  assert.throws(
    () => checkConfigListing("filter.secret-name.clean\nrm -rf /\0", false, "app"),
    (e: Error) => !e.message.includes("secret-name") && !e.message.includes("rm -rf"),
  );
  const env = gitSafeEnv({ PATH: "/bin", HOME: "/h", GIT_DIR: "/x", GIT_EXTERNAL_DIFF: "y" }, "/t");
  assert.equal(env.GIT_DIR, undefined);
  assert.equal(env.GIT_EXTERNAL_DIFF, undefined);
  assert.equal(env.GIT_ALLOW_PROTOCOL, "");
});
