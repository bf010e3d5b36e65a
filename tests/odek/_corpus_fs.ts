/** Corpus, part 2: accepted refs, roots, existence, containment, file type, size, hash. */

import { A_SHA, A_TXT, at, type Case, okAt, raw, sha256Hex } from "./_corpus.ts";

/** Filesystem-facing cases. */
export const FS_CASES: Case[] = [
  // --- accepted refs
  { name: "plain file", ref: at("out/a.txt"), expect: okAt("out/a.txt") },
  { name: "nested file", ref: at("out/sub/b.json"), expect: okAt("out/sub/b.json") },
  {
    name: "size and sha256 both match",
    ref: at("out/a.txt", { size_bytes: A_TXT.length, sha256: A_SHA, summary: "s" }),
    expect: okAt("out/a.txt"),
  },
  {
    name: "empty file, size 0",
    ref: at("out/empty.txt", { size_bytes: 0 }),
    expect: okAt("out/empty.txt"),
  },
  { name: "empty file, size absent", ref: at("out/empty.txt"), expect: okAt("out/empty.txt") },
  {
    name: "percent-encoded space",
    ref: raw((f) => `file://${f.out}/a%20b.txt`),
    expect: okAt("out/a b.txt"),
  },
  {
    name: "encoded UTF-8 name",
    ref: raw((f) => `file://${f.out}/%C3%A9.txt`),
    expect: okAt("out/é.txt"),
  },
  { name: "raw UTF-8 name", ref: raw((f) => `file://${f.out}/é.txt`), expect: okAt("out/é.txt") },
  {
    name: "encoded percent sign",
    ref: raw((f) => `file://${f.out}/100%25.txt`),
    expect: okAt("out/100%.txt"),
  },
  {
    name: "unknown fields ignored",
    ref: at("out/a.txt", { extra: { x: 1 } }),
    expect: okAt("out/a.txt"),
  },
  {
    name: "null optional fields are absent",
    ref: at("out/a.txt", { sha256: null, size_bytes: null }),
    expect: okAt("out/a.txt"),
  },
  {
    name: "symlink final component inside root",
    ref: at("out/link_in"),
    expect: okAt("out/a.txt"),
  },
  {
    name: "symlink dir component inside root",
    ref: at("out/dirlink_in/b.json"),
    expect: okAt("out/sub/b.json"),
  },
  {
    name: "symlinked root (root side)",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/rootlink`],
    expect: okAt("out/a.txt"),
  },
  { name: "symlinked root (uri side)", ref: at("rootlink/a.txt"), expect: okAt("out/a.txt") },
  { name: "symlink above the root", ref: at("uplink/out/a.txt"), expect: okAt("out/a.txt") },
  {
    name: "root with trailing slash",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.out}/`],
    expect: okAt("out/a.txt"),
  },
  {
    name: "filesystem root as root",
    ref: at("out/a.txt"),
    roots: () => ["/"],
    expect: okAt("out/a.txt"),
  },
  {
    name: "missing root skipped, other admits",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/nope`, f.out],
    expect: okAt("out/a.txt"),
  },
  // --- roots
  { name: "no roots", ref: at("out/a.txt"), roots: () => [], expect: "no-roots" },
  {
    name: "only missing roots",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/nope`],
    expect: "no-usable-roots",
  },
  {
    name: "root is a file",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/plainfile`],
    expect: "no-usable-roots",
  },
  { name: "relative root", ref: at("out/a.txt"), roots: () => ["out"], expect: "no-usable-roots" },
  // --- existence and containment
  { name: "missing file", ref: at("out/nope.txt"), expect: "not-found" },
  { name: "dangling symlink", ref: at("out/dangling"), expect: "not-found" },
  { name: "symlink loop", ref: at("out/loop1"), expect: "not-found" },
  { name: "file used as a directory", ref: at("out/a.txt/x"), expect: "not-found" },
  { name: "outside every root", ref: at("secret.txt"), expect: "outside-roots" },
  { name: "sibling-prefix root out2", ref: at("out2/f.txt"), expect: "outside-roots" },
  {
    name: "prefix root ou vs out",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/ou`],
    expect: "outside-roots",
  },
  { name: "symlink final component escapes", ref: at("out/link_out"), expect: "outside-roots" },
  {
    name: "symlink dir component escapes",
    ref: at("out/dirlink_out/c.txt"),
    expect: "outside-roots",
  },
  {
    name: "symlinked root pointing elsewhere",
    ref: at("out/a.txt"),
    roots: (f) => [`${f.dir}/rootlink_other`],
    expect: "outside-roots",
  },
  { name: "symlink to a device escapes", ref: at("out/devlink"), expect: "outside-roots" },
  // --- file type and size
  { name: "directory target", ref: at("out/dir"), expect: "not-regular" },
  { name: "root itself as target", ref: at("out"), expect: "not-regular" },
  {
    name: "FIFO target (must not block)",
    ref: at("out/fifo", { sha256: A_SHA }),
    expect: "not-regular",
  },
  {
    name: "device target",
    ref: raw(() => "file:///dev/null", { sha256: A_SHA }),
    roots: () => ["/dev"],
    expect: "not-regular",
  },
  {
    name: "device /dev/zero",
    ref: raw(() => "file:///dev/zero"),
    roots: () => ["/dev"],
    expect: "not-regular",
  },
  {
    name: "size_bytes negative",
    ref: at("out/a.txt", { size_bytes: -1 }),
    expect: "size-bytes-invalid",
  },
  {
    name: "size_bytes fractional",
    ref: at("out/a.txt", { size_bytes: 1.5 }),
    expect: "size-bytes-invalid",
  },
  {
    name: "size_bytes too large",
    ref: at("out/a.txt", { size_bytes: 2 ** 60 }),
    expect: "size-bytes-invalid",
  },
  {
    name: "size_bytes one less",
    ref: at("out/a.txt", { size_bytes: A_TXT.length - 1 }),
    expect: "size-mismatch",
  },
  {
    name: "size_bytes one more",
    ref: at("out/a.txt", { size_bytes: A_TXT.length + 1 }),
    expect: "size-mismatch",
  },
  {
    name: "size_bytes 0 is not absent",
    ref: at("out/a.txt", { size_bytes: 0 }),
    expect: "size-mismatch",
  },
  {
    name: "size checked before hash",
    ref: at("out/a.txt", { size_bytes: 1, sha256: "0".repeat(64) }),
    expect: "size-mismatch",
  },
  // --- sha256
  {
    name: "sha256 uppercase",
    ref: at("out/a.txt", { sha256: A_SHA.toUpperCase() }),
    expect: "sha256-format",
  },
  {
    name: "sha256 short",
    ref: at("out/a.txt", { sha256: A_SHA.slice(0, 63) }),
    expect: "sha256-format",
  },
  { name: "sha256 long", ref: at("out/a.txt", { sha256: A_SHA + "0" }), expect: "sha256-format" },
  { name: "sha256 empty", ref: at("out/a.txt", { sha256: "" }), expect: "sha256-format" },
  {
    name: "sha256 with prefix",
    ref: at("out/a.txt", { sha256: `sha256:${A_SHA}` }),
    expect: "sha256-format",
  },
  {
    name: "sha256 mismatch",
    ref: at("out/a.txt", { sha256: sha256Hex("other") }),
    expect: "sha256-mismatch",
  },
  {
    name: "sha256 of the empty string on a non-empty file",
    ref: at("out/a.txt", { sha256: sha256Hex("") }),
    expect: "sha256-mismatch",
  },
  {
    name: "sha256 of empty file ok",
    ref: at("out/empty.txt", { sha256: sha256Hex("") }),
    expect: okAt("out/empty.txt"),
  },
];
