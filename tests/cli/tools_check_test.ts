/**
 * `toolhost tools check`: the JSON report, exit codes and flag combinations (in-process).
 */

import { sandboxSupport } from "../../lib/sandbox/detect.ts";
import { findWorkspaceRoot } from "../../lib/workspace/manifest_file.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXAMPLES, fixture, runCapture } from "../helpers/cli.ts";
import {
  BASE_FILES,
  BASE_TOML,
  exists,
  type FileTree,
  JSON_TOOL,
  toolTable,
  withWorkspace,
} from "../helpers/workspace.ts";

interface Check {
  check: string;
  ok: boolean;
  detail: string;
}
interface ToolReport {
  name: string;
  inputSchema: Record<string, unknown>;
  checks: Check[];
  ready: boolean;
  confinement?: { effect: string };
}
interface Report {
  eval?: string;
  artifact?: string;
  audience: string;
  scope: Record<string, { path: string; kind: string; children: Record<string, string> }>;
  tools: ToolReport[];
  ready: boolean;
}

// Seed: "tools check discovers and validates declarations, resolves executable
// availability, scoped argv operands and declared execution paths, and prints JSON
// scopes, schemas and per-tool readiness checks."
Deno.test("tools check app/review on examples: JSON scopes, schemas, checks; exit 0", async () => {
  const r = await runCapture(["tools", "check", "--json", "--repo", EXAMPLES, "app/review"]);
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out) as Report;
  assert.equal(report.eval, "app/review");
  assert.equal(report.audience, "agent");
  assert.deepEqual(Object.keys(report.scope), ["app", "spec", "notes"]);
  assert.deepEqual(report.scope.app, { path: "app", kind: "folder", children: { rules: "spec" } });
  assert.equal(report.scope.notes.kind, "file");
  const stats = report.tools.find((t) => t.name === "stats_app")!;
  assert.equal(stats.inputSchema.type, "object");
  // stats_app is confined (sandbox = "read"): ready only where bubblewrap works.
  const confinable = sandboxSupport().ok;
  assert.deepEqual(stats.checks.map((c) => [c.check, c.ok]), [
    ["executable", true],
    ["operands", true],
    ["execution_path", true],
    ["confinement", confinable],
  ]);
  if (confinable) assert.equal(stats.confinement?.effect, "bubblewrap fs=read net=off");
  assert.ok(report.tools.every((t) => t.checks.length > 0));
  assert.equal(report.ready, confinable);
});

Deno.test("tools check with --eval equals the positional selector", async () => {
  const a = await runCapture(["tools", "check", "--json", "--repo", EXAMPLES, "app/review"]);
  const b = await runCapture([
    "tools",
    "check",
    "--repo",
    EXAMPLES,
    "--eval",
    "app/review",
    "--json",
  ]);
  assert.equal(b.code, 0);
  assert.deepEqual(JSON.parse(b.out), JSON.parse(a.out));
});

Deno.test("tools check without a selector reports every eval", async () => {
  const r = await runCapture(["tools", "check", "--json", "--repo", EXAMPLES]);
  assert.equal(r.code, 0, r.err);
  const body = JSON.parse(r.out) as { evals: Report[]; ready: boolean };
  assert.deepEqual(body.evals.map((e) => [e.eval, e.audience]), [
    ["app/review", "agent"],
    ["app/triage", "human"],
  ]);
  assert.equal(body.ready, true);
});

Deno.test("tools check --artifact A --audience: that Artifact and its children", async () => {
  const r = await runCapture([
    "tools",
    "check",
    "--json",
    "--repo",
    fixture("scoped"),
    "--artifact",
    "spec",
    "--audience",
    "agent",
  ]);
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out) as Report;
  assert.equal(report.artifact, "spec");
  assert.deepEqual(Object.keys(report.scope), ["spec", "deep"]);
  assert.deepEqual(report.tools.map((t) => t.name), ["list_spec", "read_deep"]);
});

// Seed: "Exit codes are 0 for ready/success, 1 for declaration/preflight/tool/cleanup
// failure, and 2 for invalid invocation."
Deno.test("exit 1 when a declared command is missing from PATH", async () => {
  const toml = BASE_TOML +
    toolTable("app", "x", { ...JSON_TOOL, command: "toolhost-no-such-program-xyz" });
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--json", "--repo", root, "app/review"]);
    assert.equal(r.code, 1, r.err);
    const tool = (JSON.parse(r.out) as Report).tools[0];
    assert.equal(tool.ready, false);
    assert.deepEqual(tool.checks[0], {
      check: "executable",
      ok: false,
      detail: "the command was not found on PATH",
    });
  });
});

Deno.test("exit 1 when a relative command is missing or not executable, each with its own fix", async () => {
  const toml = BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, command: "tools/run.sh" });
  const cases: [FileTree, RegExp, RegExp][] = [
    [BASE_FILES, /the command's file does not exist/, /fix: create the file/],
    [
      { ...BASE_FILES, "app/tools/run.sh": "#!/bin/sh\n" },
      /the command's file is not executable/,
      /fix: make it executable: `chmod \+x` the file\n/,
    ],
    [
      { ...BASE_FILES, "app/tools/run.sh": { dir: true } },
      /the command is not a regular file/,
      /fix: point `command` at a program file/,
    ],
  ];
  for (const [files, detail, fix] of cases) {
    await withWorkspace(toml, files, async (root) => {
      const r = await runCapture(["tools", "check", "--json", "--repo", root, "app/review"]);
      assert.equal(r.code, 1);
      assert.match(r.out, detail);
      const table = await runCapture(["tools", "check", "--repo", root, "app/review"]);
      assert.equal(table.code, 1);
      assert.match(table.out, detail);
      assert.match(table.out, fix);
    });
  }
  const ok = { ...BASE_FILES, "app/tools/run.sh": { text: "#!/bin/sh\n", mode: 0o755 } };
  await withWorkspace(toml, ok, async (root) => {
    assert.equal(
      (await runCapture(["tools", "check", "--json", "--repo", root, "app/review"])).code,
      0,
    );
  });
});

Deno.test("exit 1 when a declared execution path is missing", async () => {
  const toml = BASE_TOML +
    toolTable("app", "x", { ...JSON_TOOL, execution_paths: ["app/README.md", "app/bin/tool"] });
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--json", "--repo", root, "app/review"]);
    assert.equal(r.code, 1);
    const checks = (JSON.parse(r.out) as Report).tools[0].checks;
    const paths = checks.filter((c) => c.check === "execution_path");
    assert.deepEqual(paths.map((c) => c.ok), [true, false]);
    assert.match(paths[1].detail, /`app\/bin\/tool` is missing/);
    assert.ok(!paths[1].detail.includes(root), "a physical path leaked");
  });
});

Deno.test("exit 1 when an execution path goes through a symlink", async () => {
  const files = { ...BASE_FILES, "app/real/tool": "x", "app/link": { symlink: "real" } };
  const toml = BASE_TOML +
    toolTable("app", "x", { ...JSON_TOOL, execution_paths: ["app/real/tool", "app/link/tool"] });
  await withWorkspace(toml, files, async (root) => {
    const r = await runCapture(["tools", "check", "--json", "--repo", root, "app/review"]);
    assert.equal(r.code, 1);
    const paths = (JSON.parse(r.out) as Report).tools[0].checks
      .filter((c) => c.check === "execution_path");
    assert.deepEqual(paths.map((c) => c.ok), [true, false]);
    assert.match(paths[1].detail, /symlink/);
  });
});

// Seed: "tools check statically checks the referenced session’s executables and operands
// without running it."
Deno.test("exit 1 when a bound session's stop command is missing", async () => {
  const session = "[artifacts.app.views.agent_sessions.s]\n" +
    'start = { command = "sh", args = [] }\n' +
    'stop = { command = "tools/stop.sh", args = [], execution_paths = ["app/tools/stop.sh"] }\n';
  const toml = BASE_TOML + session + toolTable("app", "x", { ...JSON_TOOL, session: "s" });
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--json", "--repo", root, "app/review"]);
    assert.equal(r.code, 1);
    const body = JSON.parse(r.out) as Report & {
      sessions: { name: string; checks: Check[]; ready: boolean }[];
    };
    assert.equal(body.tools[0].ready, true);
    assert.equal(body.sessions.length, 1);
    assert.equal(body.sessions[0].ready, false);
    const failed = body.sessions[0].checks.filter((c) => !c.ok).map((c) => c.check);
    assert.deepEqual(failed, ["stop.executable", "stop.execution_path"]);
  });
});

Deno.test("exit 1 on a declaration error, printed without a stack trace", async () => {
  const toml = BASE_TOML + toolTable("app", "x", { ...JSON_TOOL, protocol: "xml", timeout_ms: 0 });
  await withWorkspace(toml, BASE_FILES, async (root) => {
    const r = await runCapture(["tools", "check", "--json", "--repo", root]);
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    assert.match(r.err, /declaration errors:/);
    assert.match(r.err, /toolhost\.toml:9: artifacts\.app\.views\.agent_tools\.x\.protocol:/);
    assert.match(r.err, /artifacts\.app\.views\.agent_tools\.x\.timeout_ms/);
    assert.ok(!/^\s+at /m.test(r.err), "stack trace printed");
    assert.ok(!r.err.includes(root), "physical root printed");
  });
});

Deno.test("exit 2 for invalid flag combinations", async () => {
  const cases: [string[], RegExp][] = [
    [["app/review", "--eval", "app/review"], /positional selector or with --eval/],
    [["app/review", "--artifact", "app", "--audience", "agent"], /cannot be combined/],
    [["--eval", "app/review", "--artifact", "app"], /cannot be combined/],
    [["--eval", "app/review", "--audience", "agent"], /cannot be combined/],
    [["--artifact", "app"], /--artifact and --audience must be given together/],
    [["--audience", "agent"], /together/],
    [["--artifact", "app", "--audience", "robot"], /"agent" or "human"/],
    [["--execute"], /--execute requires --tool/],
    [["--execute", "--tool", "read_app"], /runs a tool of one eval: name it \(`toolhost tools/],
    [["app/review", "--execute", "--tool", "read_app", "--args", "{path:1}"], /quoted for the/],
    [["--tool", "read_app"], /--tool requires --execute/],
    [["--args", "{}"], /--args requires --execute/],
    [["--bogus"], /unknown option/],
  ];
  for (const [argv, message] of cases) {
    const r = await runCapture(["tools", "check", "--json", "--repo", EXAMPLES, ...argv]);
    assert.equal(r.code, 2, `${argv.join(" ")}: ${r.err}`);
    assert.match(r.err, message, argv.join(" "));
    assert.equal(r.out, "");
  }
});

Deno.test("exit 2 for an unknown eval or Artifact, with a hint", async () => {
  const r = await runCapture(["tools", "check", "--json", "--repo", EXAMPLES, "app/reveiw"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /did you mean `app\/review`/);
  const a = await runCapture([
    "tools",
    "check",
    "--json",
    "--repo",
    EXAMPLES,
    "--artifact",
    "ap",
    "--audience",
    "agent",
  ]);
  assert.equal(a.code, 2);
  assert.match(a.err, /did you mean `app`/);
});

Deno.test("--repo without toolhost.toml → exit 2 with a clear message", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost_test_" });
  try {
    for (const cmd of [["tools", "check"], ["tools", "list", "--eval", "app/review"]]) {
      const r = await runCapture([...cmd, "--repo", dir]);
      assert.equal(r.code, 2);
      assert.match(
        r.err,
        /no toolhost\.toml in that folder; start a workspace with `toolhost init json-tool NAME --repo /,
      );
    }
    const gone = await runCapture(["tools", "check", "--repo", join(dir, "nope")]);
    assert.equal(gone.code, 2);
    assert.match(gone.err, /--repo .*nope: no such folder/);
    await Deno.writeTextFile(join(dir, "toolhost.toml"), "");
    const manifest = await runCapture(["tools", "check", "--repo", join(dir, "toolhost.toml")]);
    assert.equal(manifest.code, 2);
    assert.equal(
      manifest.err,
      `toolhost: --repo ${dir}/toolhost.toml: that is the manifest; pass the folder that ` +
        `holds it: --repo ${dir} [INVALID_INVOCATION]\n`,
    );
    await Deno.writeTextFile(join(dir, "notes.txt"), "");
    const file = await runCapture(["tools", "check", "--repo", join(dir, "notes.txt")]);
    assert.equal(file.code, 2);
    assert.match(
      file.err,
      /--repo .*notes\.txt: not a folder; pass the folder that holds toolhost\.toml/,
    );
    await Deno.remove(join(dir, "toolhost.toml"));
    assert.throws(
      () => findWorkspaceRoot(undefined, dir),
      /pass --repo DIR, or start a workspace with `toolhost init json-tool NAME` here/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no manifest here or above, but in a subfolder: its --repo is named", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost-below-" });
  try {
    for (const sub of ["ws", "my tools", "plain", "dir"]) await Deno.mkdir(join(dir, sub));
    await Deno.writeTextFile(join(dir, "ws", "toolhost.toml"), "");
    await Deno.writeTextFile(join(dir, "my tools", "toolhost.toml"), "");
    await Deno.mkdir(join(dir, "dir", "toolhost.toml")); // not a manifest
    assert.throws(
      () => findWorkspaceRoot(undefined, dir),
      /found in the current folder or its ancestors; pass --repo DIR \(here: --repo 'my tools', --repo ws\), or start/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--repo names a subfolder of a workspace: the workspace's --repo is named", async () => {
  const dir = await Deno.makeTempDir({ prefix: "toolhost-inside-" });
  try {
    await Deno.mkdir(join(dir, "ws", "tools", "deep"), { recursive: true });
    await Deno.writeTextFile(join(dir, "ws", "toolhost.toml"), "");
    assert.throws(() => findWorkspaceRoot("ws/tools/deep", dir), {
      message: `--repo ws/tools/deep: no toolhost.toml in that folder; it is inside the ` +
        `workspace at ${dir}/ws: pass --repo ws, or leave --repo out when running from inside it`,
    });
    assert.throws(() => findWorkspaceRoot("tools", join(dir, "ws")), /: pass --repo \.,/);
    assert.throws(
      () => findWorkspaceRoot("..", join(dir, "ws", "tools", "deep")),
      /--repo \.\.\/\.\.,/,
    );
    const abs = await runCapture(["tools", "list", "--repo", join(dir, "ws", "tools")]);
    assert.equal(abs.code, 2);
    assert.match(abs.err, new RegExp(`: pass --repo ${dir}/ws, or leave --repo out`));
    assert.doesNotMatch(abs.err, /toolhost init/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--state-dir is accepted and nothing is written there by a static check", async () => {
  await withWorkspace(BASE_TOML, BASE_FILES, async (root) => {
    const stateDir = join(root, "st");
    const r = await runCapture([
      "tools",
      "check",
      "--json",
      "--repo",
      root,
      "--state-dir",
      stateDir,
    ]);
    assert.equal(r.code, 0, r.err);
    assert.ok(!exists(stateDir));
  });
});
