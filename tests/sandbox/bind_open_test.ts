/**
 * Opening bind sources (lib/sandbox/bind_open.ts): below a guarded path every component
 * is opened without following it, so a symlink anywhere on the way (the source itself
 * included) refuses; the descriptor is the object found there; a missing source is not
 * bound; a path outside every guarded path, or exempt, is opened as it resolves.
 */

import assert from "node:assert/strict";
import fs from "node:fs";
import { openBindSources } from "../../lib/sandbox/bind_open.ts";
import { ToolhostError } from "../../lib/errors/errors.ts";

function tree(): { ws: string; out: string; done: () => void } {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "toolhost_bindopen_" }));
  const out = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "toolhost_bindout_" }));
  Deno.mkdirSync(`${ws}/a/b`, { recursive: true });
  Deno.writeTextFileSync(`${ws}/a/b/f`, "x");
  Deno.writeTextFileSync(`${out}/secret`, "s");
  Deno.symlinkSync(out, `${ws}/link`);
  Deno.symlinkSync(`${ws}/a`, `${ws}/alias`);
  const done = () => {
    Deno.removeSync(ws, { recursive: true });
    Deno.removeSync(out, { recursive: true });
  };
  return { ws, out, done };
}

function close(fds: (number | undefined)[]): void {
  for (const fd of fds) if (fd !== undefined) fs.closeSync(fd);
}

function inode(fd: number | undefined): number {
  assert.ok(fd !== undefined);
  return fs.fstatSync(fd).ino;
}

const refused = (e: unknown) => e instanceof ToolhostError && /symlink/.test(e.message);

Deno.test("bind sources below a guarded path: the object at the path, opened without following", () => {
  const { ws, done } = tree();
  try {
    const fds = openBindSources([`${ws}/a/b`, `${ws}/a/b/f`, `${ws}/a/b/`, `${ws}/nope/x`], [ws]);
    assert.equal(inode(fds[0]), Deno.statSync(`${ws}/a/b`).ino);
    assert.equal(inode(fds[1]), Deno.statSync(`${ws}/a/b/f`).ino);
    assert.equal(inode(fds[2]), Deno.statSync(`${ws}/a/b`).ino);
    assert.equal(fds[3], undefined, "a missing source is not bound");
    close(fds);
  } finally {
    done();
  }
});

Deno.test("bind sources: a symlink at or above the source below a guarded path refuses", () => {
  const { ws, done } = tree();
  try {
    assert.throws(() => openBindSources([`${ws}/link`], [ws]), refused);
    assert.throws(() => openBindSources([`${ws}/alias/b`], [ws]), refused);
    assert.throws(() => openBindSources([`${ws}/a/b`, `${ws}/link`], [ws]), refused);
  } finally {
    done();
  }
});

Deno.test("bind sources outside every guarded path, or exempt, are opened as they resolve", () => {
  const { ws, out, done } = tree();
  try {
    const fds = openBindSources(
      [`${ws}/link`, `${ws}/alias/b`],
      [`${ws}/a`],
      new Set([`${ws}/link`]),
    );
    assert.equal(inode(fds[0]), Deno.statSync(out).ino);
    assert.equal(inode(fds[1]), Deno.statSync(`${ws}/a/b`).ino);
    close(fds);
  } finally {
    done();
  }
});
