// Node smoke test of the built npm package (run by `deno task build:npm` under Node 20).
// It imports the package through its exports map and runs its bin, like a consumer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = process.env.TOOLHOST_NPM_DIR ?? join(root, "dist", "npm");
const examples = join(root, "examples");
const importPkg = (sub) => import(pathToFileURL(join(pkgDir, sub)).href);

test("the library lists the example eval's tools", async () => {
  const { loadWorkspace, Registry } = await importPkg("esm/mod.js");
  const ws = await loadWorkspace(examples);
  const reg = await Registry.open(ws, "app/review");
  const names = reg.list().map((t) => t.name);
  assert.ok(names.includes("read_app"), names.join(","));
  assert.ok(names.includes("stats_app"));
  assert.ok(!names.includes("overview_app"), "human tools are never listed for an agent eval");
  await reg.close();
});

test("harness-kit is importable", async () => {
  const kit = await importPkg("esm/harness-kit/mod.js");
  assert.equal(kit.PROTOCOL_VERSION, 1);
});

test("the bin lists tools and checks the workspace", () => {
  const bin = join(pkgDir, "bin", "toolhost.js");
  const list = execFileSync("node", [
    bin,
    "tools",
    "list",
    "--eval",
    "app/review",
    "--json",
    "--repo",
    examples,
  ], {
    encoding: "utf8",
  });
  const parsed = JSON.parse(list);
  assert.ok(parsed.tools.some((t) => t.name === "read_app"));
  const check = execFileSync("node", [bin, "tools", "check", "--json", "--repo", examples], {
    encoding: "utf8",
  });
  assert.equal(JSON.parse(check).ready, true);
});

test("the bin exits 2 on an invalid invocation", () => {
  const bin = join(pkgDir, "bin", "toolhost.js");
  let status = 0;
  try {
    execFileSync("node", [
      bin,
      "tools",
      "check",
      "app/review",
      "--artifact",
      "app",
      "--audience",
      "agent",
      "--repo",
      examples,
    ], { stdio: "pipe" });
  } catch (e) {
    status = e.status;
  }
  assert.equal(status, 2);
});
