import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { PathError } from "../../lib/errors/errors.ts";
import { Sandbox } from "../../lib/paths/sandbox.ts";
import { runBuiltin } from "../../lib/builtins/run.ts";
import { decl, env, err, folderView, makeTree, noPhysical, ok } from "../builtins/helpers.ts";

const SECRET = "SECRET-CONTENT";

/** outer/{root (the Artifact), root-evil, secret.txt, outside/} */
function corpus() {
  const t = makeTree({
    "secret.txt": `${SECRET}\n`,
    "outside/s.txt": `${SECRET}\n`,
    "root-evil/secret2.txt": `${SECRET}\n`,
    "root/a.txt": "inside\n",
    "root/dir/b.txt": "inside b\n",
    "root/dir/s.txt": "inside s\n",
    "root/dir/link_file": { symlink: "../../secret.txt" },
    "root/dir/link_dir": { symlink: "../../outside" },
    "root/link_file": { symlink: "../secret.txt" },
    "root/link_dir": { symlink: "../outside" },
    "root/link_inside": { symlink: "a.txt" },
    "root/link_inside_dir": { symlink: "dir" },
    "root/link_sibling": { symlink: "../root-evil" },
    "root/link_abs": { symlink: "/etc" },
    "root/dangling": { symlink: "../nope" },
    "root/\u2024\u2024/x.txt": "lookalike\n",
    "root/\uff0e\uff0e/x.txt": "fullwidth dots\n",
    "root/~/x.txt": "tilde folder\n",
  });
  const root = path.join(t.root, "root");
  return { ...t, root, outer: t.root, e: env(folderView("app", root)) };
}

function refuses(fn: () => unknown, re: RegExp): void {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof PathError, String(e));
    assert.match(e.message, re);
    assert.ok(!e.message.includes("/tmp"), "message leaks a physical path");
    return;
  }
  assert.fail("expected a PathError");
}

Deno.test("symlinks at every component are refused", () => {
  const c = corpus();
  const box = Sandbox.open(c.root);
  try {
    const cases = [
      ["link_file"],
      ["link_inside"],
      ["dangling"],
      ["link_dir", "s.txt"],
      ["link_inside_dir", "b.txt"],
      ["link_sibling", "secret2.txt"],
      ["link_abs", "passwd"],
      ["dir", "link_file"],
      ["dir", "link_dir", "s.txt"],
    ];
    for (const comps of cases) {
      refuses(() => box.openFile(comps, comps.join("/")), /symlink/);
    }
    for (const comps of [["link_dir"], ["link_sibling"], ["dir", "link_dir"], ["dangling"]]) {
      refuses(() => box.openDir(comps, comps.join("/")), /symlink/);
    }
    const f = box.openFile(["dir", "b.txt"], "dir/b.txt");
    assert.equal(fs.readFileSync(f.fd, "utf8"), "inside b\n");
    fs.closeSync(f.fd);
  } finally {
    box.close();
    c.rm();
  }
});

Deno.test("missing, non-folder and special components give clear errors", () => {
  const c = corpus();
  const box = Sandbox.open(c.root);
  try {
    refuses(() => box.openFile(["nope.txt"], "nope.txt"), /does not exist/);
    refuses(() => box.openFile(["a.txt", "x"], "a.txt/x"), /not a folder/);
    refuses(() => box.openFile(["dir"], "dir"), /folder, not a file/);
    refuses(() => box.openDir(["a.txt"], "a.txt"), /not a folder/);
    refuses(() => box.openFile([], "."), /folder/);
  } finally {
    box.close();
    c.rm();
  }
});

Deno.test("a FIFO is refused without blocking, and searches skip it", async () => {
  const c = corpus();
  const fifo = path.join(c.root, "dir", "pipe");
  const mk = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
  assert.equal(mk.code, 0);
  try {
    const box = Sandbox.open(c.root);
    refuses(() => box.openFile(["dir", "pipe"], "dir/pipe"), /special file/);
    box.close();
    assert.match(err(await runBuiltin(decl("read"), { path: "dir/pipe" }, c.e)), /special file/);
    const list = ok(await runBuiltin(decl("list"), { path: "dir" }, c.e));
    assert.deepEqual(list.entries.find((e: { name: string }) => e.name === "pipe"), {
      name: "pipe",
      kind: "other",
    });
    const g = ok(await runBuiltin(decl("grep"), { pattern: "inside", path: "dir" }, c.e));
    assert.deepEqual(g.matches.map((m: { path: string }) => m.path), ["dir/b.txt", "dir/s.txt"]);
    const gl = ok(await runBuiltin(decl("glob"), { pattern: "**", path: "dir" }, c.e));
    assert.deepEqual(gl.files, ["dir/b.txt", "dir/s.txt"]);
  } finally {
    c.rm();
  }
});

Deno.test("the adversarial corpus never escapes through read, list, glob or grep", async () => {
  const c = corpus();
  try {
    const badPaths = [
      "../secret.txt",
      "../root-evil/secret2.txt",
      "dir/../../secret.txt",
      "dir/..",
      "..",
      "a.txt/..",
      "/etc/passwd",
      c.outer + "/secret.txt",
      "~/../secret.txt",
      "..\\secret.txt",
      "dir\\..\\..\\secret.txt",
      "c:secret.txt",
      "a.txt\0",
      "link_file",
      "link_dir/s.txt",
      "link_sibling/secret2.txt",
      "dir/link_file",
      "dir/link_dir/s.txt",
      "dangling",
      "link_abs/passwd",
      "\u2024\u2024/secret.txt",
      "\uff0e\uff0e/secret.txt",
      "\u2024\u2024\uff0fsecret.txt",
      "~/secret.txt",
    ];
    for (const p of badPaths) {
      for (
        const [tool, args] of [
          ["read", { path: p }],
          ["list", { path: p }],
          ["glob", { pattern: "**", path: p }],
          ["grep", { pattern: "S", path: p }],
          ["view_image", { path: p }],
        ] as const
      ) {
        const r = await runBuiltin(decl(tool), args, c.e);
        assert.equal(r.isError, true, `${tool} ${JSON.stringify(p)} should fail`);
        assert.ok(!JSON.stringify(r).includes(SECRET), `${tool} leaked`);
        noPhysical(r, c.outer);
      }
    }
    // Look-alike folders are ordinary names: readable inside, never an escape.
    const r = ok(await runBuiltin(decl("read"), { path: "\u2024\u2024/x.txt" }, c.e));
    assert.equal(r.lines[0].text, "lookalike\n");
    const r2 = ok(await runBuiltin(decl("read"), { path: "~/x.txt" }, c.e));
    assert.equal(r2.lines[0].text, "tilde folder\n");
    // Whole-tree searches skip every symlink.
    const g = ok(await runBuiltin(decl("grep"), { pattern: "." }, c.e));
    assert.ok(!JSON.stringify(g).includes(SECRET));
    const gl = ok(await runBuiltin(decl("glob"), { pattern: "**/*" }, c.e));
    assert.ok(gl.files.every((f: string) => !f.startsWith("link") && f !== "dangling"));
    assert.ok(!gl.files.some((f: string) => f.includes("secret")));
    const l = ok(await runBuiltin(decl("list"), {}, c.e));
    const kinds = Object.fromEntries(
      l.entries.map((e: { name: string; kind: string }) => [e.name, e.kind]),
    );
    assert.equal(kinds.link_dir, "symlink");
    assert.equal(kinds.dangling, "symlink");
    assert.equal(kinds.dir, "directory");
    assert.equal(kinds["a.txt"], "file");
  } finally {
    c.rm();
  }
});

/** Start a shell loop (in `dir`) that keeps swapping entries until `../stop` exists. */
function swapper(dir: string, script: string): Deno.ChildProcess {
  return new Deno.Command("bash", {
    args: ["-c", script],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).spawn();
}

Deno.test("race: a file swapped for a symlink between check and open never leaks", async () => {
  const c = corpus();
  fs.writeFileSync(path.join(c.root, "race.txt"), "inside\n");
  fs.mkdirSync(path.join(c.root, "rdir"));
  fs.writeFileSync(path.join(c.root, "rdir", "s.txt"), "inside\n");
  const child = swapper(
    c.root,
    `while [ ! -e ../stop ]; do
       ln -sfn ../secret.txt race.lnk; mv -fT race.lnk race.txt
       printf 'inside\\n' > race.new; mv -fT race.new race.txt
       ln -sfn ../outside rdir.lnk; mv -fT rdir rdir.real; mv -fT rdir.lnk rdir
       rm -f rdir; mv -fT rdir.real rdir
     done`,
  );
  let okReads = 0;
  let refused = 0;
  try {
    for (let i = 0; i < 400; i++) {
      for (
        const [tool, args] of [
          ["read", { path: "race.txt" }],
          ["read", { path: "rdir/s.txt" }],
          ["grep", { pattern: "[A-Za-z]", path: "race.txt" }],
          ["grep", { pattern: "[A-Za-z]" }],
          ["list", { path: "rdir" }],
        ] as const
      ) {
        const r = await runBuiltin(decl(tool), args, c.e);
        const s = JSON.stringify(r);
        assert.ok(!s.includes(SECRET), `${tool} returned outside content`);
        noPhysical(r, c.outer);
        if (r.isError) refused++;
        else okReads++;
      }
      // Give the swapper time slices (it runs in another process).
      if (i % 50 === 0) await new Promise((res) => setTimeout(res, 1));
    }
  } finally {
    // Stop the loop between iterations so no `mv` is still running during cleanup.
    fs.writeFileSync(path.join(c.outer, "stop"), "");
    await child.status;
    c.rm();
  }
  assert.ok(okReads > 0, "some calls should succeed");
});

Deno.test("exact roots: a root whose name no longer leads to it is refused after open", () => {
  const c = corpus();
  try {
    const box = Sandbox.open(c.root, ".", { exact: true });
    assert.equal(box.real, c.root);
    box.close();
    // The last component swapped for a link (to outside, and even back to itself).
    fs.renameSync(c.root, `${c.root}.real`);
    fs.symlinkSync(path.join(c.outer, "outside"), c.root);
    refuses(() => Sandbox.open(c.root, "rules", { exact: true }), /`rules` was refused: .*moved/);
    fs.rmSync(c.root);
    fs.symlinkSync(`${c.root}.real`, c.root);
    refuses(() => Sandbox.open(c.root, ".", { exact: true }), /no longer is where/);
    fs.rmSync(c.root);
    fs.renameSync(`${c.root}.real`, c.root);
    // An inner component swapped: <outer>/in/root where `in` becomes a link.
    const inner = path.join(c.outer, "in", "root");
    fs.mkdirSync(inner, { recursive: true });
    assert.equal(Sandbox.open(inner, ".", { exact: true }).real, inner);
    fs.renameSync(path.join(c.outer, "in"), path.join(c.outer, "in.real"));
    fs.symlinkSync("in.real", path.join(c.outer, "in"));
    refuses(() => Sandbox.open(inner, "x", { exact: true }), /`x` was refused/);
    // Without `exact` the root is configuration and may lead through links.
    Sandbox.open(inner).close();
  } finally {
    c.rm();
  }
});

Deno.test("race: the Artifact folder itself swapped for a symlink never leaks", async () => {
  const c = corpus();
  fs.writeFileSync(path.join(c.outer, "outside", "a.txt"), `${SECRET}\n`);
  const child = swapper(
    c.outer,
    `while [ ! -e stop ]; do
       ln -sfn outside root.lnk; mv -fT root root.real; mv -fT root.lnk root
       rm -f root; mv -fT root.real root
     done`,
  );
  let okReads = 0;
  try {
    for (let i = 0; i < 400; i++) {
      for (
        const [tool, args] of [
          ["read", { path: "a.txt" }],
          ["list", {}],
          ["grep", { pattern: "[A-Z]" }],
          ["glob", { pattern: "*.txt" }],
        ] as const
      ) {
        const r = await runBuiltin(decl(tool), args, c.e);
        const s = JSON.stringify(r);
        assert.ok(!s.includes(SECRET), `${tool} returned outside content`);
        noPhysical(r, c.outer);
        if (!r.isError) okReads++;
      }
      if (i % 50 === 0) await new Promise((res) => setTimeout(res, 1));
    }
  } finally {
    fs.writeFileSync(path.join(c.outer, "stop"), "");
    await child.status;
    c.rm();
  }
  assert.ok(okReads > 0, "some calls should succeed");
});

Deno.test("root pinning: a root that is itself a symlink resolves to its realpath", () => {
  const c = corpus();
  try {
    const link = path.join(c.outer, "root-link");
    fs.symlinkSync("root", link);
    const box = Sandbox.open(link);
    assert.equal(box.real, c.root);
    const f = box.openFile(["a.txt"], "a.txt");
    fs.closeSync(f.fd);
    box.close();
  } finally {
    c.rm();
  }
});

Deno.test("non-admitted Artifacts are refused by physical identity, whatever the name", async () => {
  const t = makeTree({
    "app/rules/a.md": "needle rules\n",
    "app/docs/secret.md": "needle secret\n",
    "app/ok.md": "needle ok\n",
  });
  try {
    const app = path.join(t.root, "app");
    fs.linkSync(path.join(app, "docs/secret.md"), path.join(app, "copy.md"));
    // Keys that do not match the layout stand in for any other name of the same object.
    const e = env(folderView("app", app), {
      alias: { view: folderView("spec", path.join(app, "rules")), admitted: false },
      "other/secret.md": {
        view: { ...folderView("notes", path.join(app, "docs/secret.md")), kind: "file" },
        admitted: false,
      },
    });
    assert.match(err(await runBuiltin(decl("read"), { path: "rules/a.md" }, e)), /does not admit/);
    assert.match(err(await runBuiltin(decl("list"), { path: "rules" }, e)), /does not admit/);
    assert.match(err(await runBuiltin(decl("read"), { path: "copy.md" }, e)), /does not admit/);
    const g = ok(await runBuiltin(decl("grep"), { pattern: "needle" }, e));
    assert.deepEqual(g.matches.map((m: { path: string }) => m.path), ["ok.md"]);
    const gl = ok(await runBuiltin(decl("glob"), { pattern: "**/*.md" }, e));
    assert.ok(!gl.files.includes("rules/a.md"));
  } finally {
    t.rm();
  }
});
