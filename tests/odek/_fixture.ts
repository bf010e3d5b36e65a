/**
 * A temporary tree of artifact roots, files, symlinks and special files shared by the
 * odek tests.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** Paths and helpers of one fixture tree. */
export interface Fixture {
  /** The temporary directory (real path). */
  dir: string;
  /** The main artifact root `<dir>/out`. */
  out: string;
  /** Build a `file://` URI from a path, encoding nothing. */
  uri(path: string): string;
  /** A valid ref to `path` with extra fields. */
  ref(path: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** Remove the tree. */
  cleanup(): Promise<void>;
}

/** SHA-256 hex of a string. */
export function sha256Hex(s: string | Uint8Array): string {
  return createHash("sha256").update(s).digest("hex");
}

/** Contents of `<out>/a.txt`. */
export const A_TXT = "hello artifact\n";

/** Create the fixture tree. */
export async function makeFixture(): Promise<Fixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek_" }));
  const out = `${dir}/out`;
  for (const d of ["out", "out/sub", "out/dir", "out2", "other", "ou"]) {
    await Deno.mkdir(`${dir}/${d}`);
  }
  await Deno.writeTextFile(`${out}/a.txt`, A_TXT);
  await Deno.writeTextFile(`${out}/sub/b.json`, '{"b":1}');
  await Deno.writeTextFile(`${out}/empty.txt`, "");
  await Deno.writeTextFile(`${out}/a b.txt`, "space");
  await Deno.writeTextFile(`${out}/é.txt`, "accent");
  await Deno.writeTextFile(`${out}/100%.txt`, "percent");
  await Deno.writeTextFile(`${out}/%41.txt`, "literal escape name");
  await Deno.writeTextFile(`${dir}/out2/f.txt`, "sibling");
  await Deno.writeTextFile(`${dir}/secret.txt`, "secret");
  await Deno.writeTextFile(`${dir}/other/c.txt`, "other");
  await Deno.symlink(`${out}/a.txt`, `${out}/link_in`);
  await Deno.symlink(`../secret.txt`, `${out}/link_out`);
  await Deno.symlink(`${dir}/other`, `${out}/dirlink_out`);
  await Deno.symlink(`sub`, `${out}/dirlink_in`);
  await Deno.symlink(`${out}/missing`, `${out}/dangling`);
  await Deno.symlink(`${out}/loop2`, `${out}/loop1`);
  await Deno.symlink(`${out}/loop1`, `${out}/loop2`);
  await Deno.symlink("/dev/zero", `${out}/devlink`);
  await Deno.symlink(out, `${dir}/rootlink`);
  await Deno.symlink(`${dir}/other`, `${dir}/rootlink_other`);
  await Deno.symlink(dir, `${dir}/uplink`);
  await Deno.writeTextFile(`${dir}/plainfile`, "not a dir");
  const mk = await new Deno.Command("mkfifo", { args: [`${out}/fifo`] }).output();
  if (!mk.success) throw new Error("mkfifo failed");
  return {
    dir,
    out,
    uri: (p) => `file://${p}`,
    ref: (p, extra = {}) => ({
      schema: "odek.artifact-ref/v1",
      id: "r1",
      uri: `file://${p}`,
      media_type: "text/plain",
      ...extra,
    }),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
}
