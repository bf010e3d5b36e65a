/**
 * .github/workflows/release.yml is valid YAML (parsed with npm `yaml`) and consistent with
 * what it calls: every `deno task` exists in deno.json, the compile matrix is exactly the
 * release targets scripts/compile.ts accepts, Deno and Node versions match the ones CI
 * uses, checksums cover every binary, and npm publishes only the tested build.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { RELEASE_TARGETS, ROOT } from "../../scripts/compile.ts";

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  "working-directory"?: string;
}
interface Job {
  needs?: string | string[];
  if?: string;
  steps: Step[];
  strategy?: { matrix: { include: { target: string; asset: string }[] } };
  permissions?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const text = readFileSync(`${ROOT}/.github/workflows/release.yml`, "utf8");
const wf = parse(text) as Workflow;
const tasks = Object.keys(JSON.parse(readFileSync(`${ROOT}/deno.json`, "utf8")).tasks);
const runs = Object.values(wf.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ""));

Deno.test("release.yml parses as YAML with the expected jobs and triggers", () => {
  assert.deepEqual(Object.keys(wf.jobs).sort(), [
    "compile",
    "github-release",
    "npm-publish",
    "test",
  ]);
  assert.deepEqual(wf.on.push, { tags: ["v*"] });
  assert.throws(() => parse("jobs: [unclosed"), "the parser rejects broken YAML");
});

Deno.test("release.yml: every `deno task` it runs exists in deno.json", () => {
  const used = runs.flatMap((r) => [...r.matchAll(/deno task ([\w:-]+)/g)].map((m) => m[1]));
  assert.ok(used.length >= 3, used.join(","));
  for (const t of used) assert.ok(tasks.includes(t), `deno task ${t} is not in deno.json`);
});

Deno.test("release.yml: compiles exactly the five release targets with --target", () => {
  const matrix = wf.jobs.compile.strategy!.matrix.include;
  assert.deepEqual(matrix.map((m) => m.target).sort(), [...RELEASE_TARGETS].sort());
  assert.equal(new Set(matrix.map((m) => m.asset)).size, 5);
  const windows = matrix.find((m) => m.target.includes("windows"))!;
  assert.ok(windows.asset.endsWith(".exe"));
  const step = wf.jobs.compile.steps.find((s) => s.run?.includes("deno task compile"))!;
  assert.match(step.run!, /--target \$\{\{ matrix\.target \}\}/);
  assert.match(step.run!, /--output dist\/release\/\$\{\{ matrix\.asset \}\}/);
});

Deno.test("release.yml: pinned toolchains match CI (Deno 2.9.6, Node 20)", () => {
  const ci = readFileSync(`${ROOT}/.ci/run`, "utf8");
  assert.match(ci, new RegExp(`deno@${wf.env.DENO_VERSION.replaceAll(".", "\\.")}\\b`));
  assert.equal(wf.env.NODE_VERSION, "20");
  const uses = Object.values(wf.jobs).flatMap((j) => j.steps.map((s) => s.uses)).filter(Boolean);
  for (const u of uses) assert.match(u!, /@v\d+$/, `${u} is pinned to a major version`);
});

Deno.test("release.yml: checksums for every binary; release and publish only on tags", () => {
  const rel = wf.jobs["github-release"];
  assert.equal(rel.needs, "compile");
  assert.match(rel.steps.map((s) => s.run ?? "").join("\n"), /sha256sum toolhost-\* > SHA256SUMS/);
  assert.equal(rel.permissions?.contents, "write");
  const npm = wf.jobs["npm-publish"];
  for (const j of [rel, npm]) assert.equal(j.if, "startsWith(github.ref, 'refs/tags/v')");
  const order = npm.steps.map((s) => s.run ?? "");
  const build = order.findIndex((r) =>
    r.includes("deno task build:npm") && !r.includes("consumer")
  );
  const consumer = order.findIndex((r) => r.includes("deno task build:npm-consumer"));
  const publish = order.findIndex((r) => r.includes("npm publish"));
  assert.ok(build >= 0 && build < consumer && consumer < publish);
  assert.equal(npm.steps[publish]["working-directory"], "dist/npm");
  assert.deepEqual(npm.needs, ["test", "compile"]);
});
