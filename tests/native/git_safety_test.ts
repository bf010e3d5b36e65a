/**
 * git_status / git_diff never run a program named by configuration: one test per key
 * family, each with a marker file that the program would create. Each test then runs
 * plain git on the same repository state (the control) and sees the marker appear, which
 * proves the setup would have run the program.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { appTree, BASE_ENV, call, err, folderView, type Json, nativeEnv, ok } from "./_helpers.ts";
import type { ToolResult } from "../../lib/results/types.ts";

const HAS_GIT = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Environment of the test's own git commands: no system or global configuration. */
const TEST_GIT_ENV = {
  PATH: BASE_ENV.PATH,
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/**
 * A repository at a temporary root; the Artifact `app` holds a committed `a.txt`.
 * `evil` is a program that creates `marker`; `dirty()` changes `a.txt` to new content of
 * the same size, so git must hash it again (through any clean filter) to see the change.
 */
function evilRepo() {
  const t = appTree({ "a.txt": "a\n" });
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
      cwd,
      env: TEST_GIT_ENV,
      stdio: "pipe",
    }).toString();
  git(t.root, "init", "-q", "-b", "main");
  git(t.root, "add", ".");
  git(t.root, "commit", "-qm", "init");
  const marker = `${t.root}/MARKER`;
  const evil = `${t.root}/evil.sh`;
  fs.writeFileSync(evil, `#!/bin/sh\necho ran >> '${marker}'\ncat\n`, { mode: 0o755 });
  const dirty = () => {
    fs.writeFileSync(`${t.app}/a.txt`, "b\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(`${t.app}/a.txt`, later, later);
  };
  const config = (key: string, value: string) => git(t.root, "config", key, value);
  return { ...t, git, marker, evil, dirty, config };
}

type Repo = ReturnType<typeof evilRepo>;

/** Plain git (no protections) on the same state runs the program: the marker appears. */
function control(r: Repo, cwd: string, args: string[], env: Record<string, string> = TEST_GIT_ENV) {
  try {
    execFileSync("git", args, { cwd, env, stdio: "pipe", timeout: 20_000 });
  } catch { /* the program's effect is what counts */ }
  assert.equal(fs.existsSync(r.marker), true, "the control did not run the program");
  fs.rmSync(r.marker);
}

/** Run both tools; the marker must never appear. Returns the two results. */
async function bothTools(r: Repo, e = r.e): Promise<ToolResult[]> {
  const status = await call("git_status", {}, e);
  const diff = await call("git_diff", {}, e);
  assert.equal(fs.existsSync(r.marker), false, "a configured program ran");
  return [status, diff];
}

/** Both tools refuse, naming the key family (never the driver name or value). */
async function refusedBoth(r: Repo, family: RegExp, e = r.e): Promise<void> {
  for (const res of await bothTools(r, e)) {
    const m = err(res);
    assert.match(m, family);
    assert.match(m, /can make git run programs/);
    assert.ok(!m.includes("evil") && !m.includes(r.root), m);
  }
}

function gitTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: !HAS_GIT, fn });
}

gitTest("git safety: filter.<driver>.clean in .git/config is refused, never run", async () => {
  const r = evilRepo();
  try {
    r.config("filter.x.clean", `${r.evil}`);
    fs.writeFileSync(`${r.app}/.gitattributes`, "* filter=x\n");
    r.dirty();
    await refusedBoth(r, /`filter\.<driver>\.clean`/);
    control(r, r.app, ["status"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: filter.<driver>.process and .smudge are refused, never run", async () => {
  const r = evilRepo();
  try {
    r.config("filter.Odd.Name.process", `${r.evil}`);
    r.config("filter.y.smudge", `${r.evil}`);
    fs.writeFileSync(`${r.app}/.gitattributes`, "* filter=Odd.Name\n");
    r.dirty();
    await refusedBoth(r, /`filter\.<driver>\.process`, `filter\.<driver>\.smudge`/);
    control(r, r.app, ["status"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: core.fsmonitor naming a program is overridden", async () => {
  const r = evilRepo();
  try {
    r.config("core.fsmonitor", r.evil);
    r.dirty();
    const [status] = await bothTools(r);
    const s: Json = ok(status);
    assert.deepEqual(s.entries, [{ path: "a.txt", index: " ", worktree: "M" }]);
    control(r, r.app, ["status"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: diff.external is overridden; diff drivers are refused", async () => {
  const r = evilRepo();
  try {
    r.config("diff.external", r.evil);
    r.dirty();
    const [, diff] = await bothTools(r);
    assert.match((diff.content[1] as { text: string }).text, /^-a\n\+b$/m);
    control(r, r.app, ["diff"]);
    r.git(r.root, "config", "--unset", "diff.external");
    r.config("diff.x.command", r.evil);
    fs.writeFileSync(`${r.app}/.gitattributes`, "* diff=x\n");
    await refusedBoth(r, /`diff\.<driver>\.command`/);
    control(r, r.app, ["diff"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: diff.<driver>.textconv is refused, never run", async () => {
  const r = evilRepo();
  try {
    r.config("diff.x.textconv", r.evil);
    fs.writeFileSync(`${r.app}/.gitattributes`, "* diff=x\n");
    r.dirty();
    await refusedBoth(r, /`diff\.<driver>\.textconv`/);
    control(r, r.app, ["diff"]);
  } finally {
    r.rm();
  }
});

gitTest(
  "git safety: include.path and includeIf are refused (their files are never read)",
  async () => {
    const r = evilRepo();
    try {
      const inc = `${r.root}/included.cfg`;
      fs.writeFileSync(inc, `[filter "x"]\n\tclean = ${r.evil}\n`);
      fs.writeFileSync(`${r.app}/.gitattributes`, "* filter=x\n");
      r.config("include.path", inc);
      r.dirty();
      await refusedBoth(r, /`include\.path`/);
      control(r, r.app, ["status"]);
      r.dirty();
      r.git(r.root, "config", "--unset", "include.path");
      r.config(`includeIf.gitdir:${r.root}/.path`, inc);
      await refusedBoth(r, /`includeIf\.<condition>\.path`/);
      control(r, r.app, ["status"]);
    } finally {
      r.rm();
    }
  },
);

gitTest("git safety: core.hooksPath hooks (post-index-change) never run", async () => {
  const r = evilRepo();
  try {
    let bump = 5000;
    /** Same content, a later mtime: refreshing the index rewrites it (hook time). */
    const restat = () => {
      const later = new Date(Date.now() + (bump += 5000));
      fs.utimesSync(`${r.app}/a.txt`, later, later);
    };
    const hooks = `${r.root}/hooks`;
    fs.mkdirSync(hooks);
    for (const h of ["post-index-change", "reference-transaction", "post-checkout"]) {
      fs.copyFileSync(r.evil, `${hooks}/${h}`);
      fs.chmodSync(`${hooks}/${h}`, 0o755);
    }
    r.config("core.hooksPath", hooks);
    restat();
    ok((await bothTools(r))[0]);
    restat();
    control(r, r.app, ["diff"]);
    r.git(r.root, "config", "--unset", "core.hooksPath");
    fs.rmSync(`${r.root}/.git/hooks`, { recursive: true, force: true });
    fs.renameSync(hooks, `${r.root}/.git/hooks`); // the default hooks folder
    restat();
    ok((await bothTools(r))[0]);
    restat();
    control(r, r.app, ["diff"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: config-based hooks (hook.<name>.command) are refused", async () => {
  const r = evilRepo();
  try {
    r.config("hook.evil.command", r.evil);
    r.config("hook.evil.event", "post-index-change");
    r.dirty();
    await refusedBoth(r, /`hook\.<name>\.\*`/);
  } finally {
    r.rm();
  }
});

gitTest("git safety: global configuration (HOME/.gitconfig) is ignored", async () => {
  const r = evilRepo();
  try {
    const home = `${r.root}/home`;
    fs.mkdirSync(home);
    fs.writeFileSync(
      `${home}/.gitconfig`,
      `[filter "x"]\n\tclean = ${r.evil}\n[core]\n\tattributesFile = ${home}/attrs\n`,
    );
    fs.writeFileSync(`${home}/attrs`, "* filter=x\n");
    r.dirty();
    const e = nativeEnv(folderView("app", r.app), r.state, {
      baseEnv: { ...BASE_ENV, HOME: home },
    });
    const s: Json = ok((await bothTools(r, e))[0]);
    assert.deepEqual(s.entries, [{ path: "a.txt", index: " ", worktree: "M" }]);
    control(r, r.app, ["status"], { PATH: BASE_ENV.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" });
  } finally {
    r.rm();
  }
});

gitTest("git safety: submodules (with their own configuration) are not entered", async () => {
  const r = evilRepo();
  try {
    const src = `${r.root}/subsrc`;
    fs.mkdirSync(src);
    r.git(src, "init", "-q", "-b", "main");
    fs.writeFileSync(`${src}/s.txt`, "s\n");
    r.git(src, "add", ".");
    r.git(src, "commit", "-qm", "s");
    r.git(r.root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "app/sub");
    r.git(r.root, "commit", "-qm", "sub");
    const sub = `${r.app}/sub`;
    r.git(sub, "config", "filter.x.clean", r.evil);
    fs.writeFileSync(`${sub}/.gitattributes`, "* filter=x\n");
    fs.writeFileSync(`${sub}/s.txt`, "z\n");
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(`${sub}/s.txt`, later, later);
    ok((await bothTools(r))[0]);
    control(r, r.root, ["status"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: a partial clone's lazy fetch never starts a transport (ext::)", async () => {
  const r = evilRepo();
  try {
    r.config("core.repositoryformatversion", "1");
    r.config("extensions.partialClone", "origin");
    r.config("remote.origin.promisor", "true");
    r.config("remote.origin.url", `ext::sh -c touch% ${r.marker}`);
    r.config("protocol.ext.allow", "always");
    const missing = execFileSync("git", ["hash-object", "--stdin"], {
      input: "never stored\n",
      env: TEST_GIT_ENV,
    }).toString().trim();
    r.git(r.root, "update-index", "--add", "--cacheinfo", `100644,${missing},app/g.txt`);
    fs.writeFileSync(`${r.app}/g.txt`, "worktree\n");
    await bothTools(r); // git fails to read the blob: an error, but nothing runs
    control(r, r.app, ["diff"]);
  } finally {
    r.rm();
  }
});

gitTest("git safety: an Artifact folder laid out as a repository folder is not used", async () => {
  const r = evilRepo();
  try {
    // HEAD, objects/, refs/ and a config beside the files: plain git takes `app` itself for
    // the repository folder (core.worktree = .), with the filter its config names.
    fs.writeFileSync(`${r.app}/HEAD`, "ref: refs/heads/main\n");
    fs.mkdirSync(`${r.app}/objects`);
    fs.mkdirSync(`${r.app}/refs`);
    fs.writeFileSync(
      `${r.app}/config`,
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n` +
        `[filter "x"]\n\tclean = ${r.evil}\n`,
    );
    fs.writeFileSync(`${r.app}/.gitattributes`, "a.txt filter=x\n");
    r.git(r.app, "add", "a.txt");
    fs.rmSync(r.marker);
    r.dirty();
    const [status, diff] = await bothTools(r);
    for (const res of [status, diff]) assert.match(err(res), /git refused it/);
    control(r, r.app, ["status"]);
  } finally {
    r.rm();
  }
});
