/** Corpus, part 1: ref shape, schema, URI form and traversal in every encoding. */

import { at, type Case, raw, SCHEMA as S } from "./_corpus.ts";

/** Shape, schema, URI and traversal cases. */
export const URI_CASES: Case[] = [
  // --- shape and schema
  { name: "ref null", ref: () => null, expect: "ref-not-object" },
  { name: "ref array", ref: () => [], expect: "ref-not-object" },
  { name: "ref string", ref: () => "file:///x", expect: "ref-not-object" },
  {
    name: "schema missing",
    ref: (f) => ({ ...at("out/a.txt")(f), schema: undefined }),
    expect: "schema",
  },
  { name: "schema v2", ref: at("out/a.txt", { schema: "odek.artifact-ref/v2" }), expect: "schema" },
  { name: "schema uppercase", ref: at("out/a.txt", { schema: S.toUpperCase() }), expect: "schema" },
  {
    name: "schema of the envelope",
    ref: at("out/a.txt", { schema: "odek.tool-result/v1" }),
    expect: "schema",
  },
  { name: "id missing", ref: at("out/a.txt", { id: undefined }), expect: "missing-id" },
  { name: "id empty", ref: at("out/a.txt", { id: "" }), expect: "missing-id" },
  { name: "id number", ref: at("out/a.txt", { id: 7 }), expect: "missing-id" },
  { name: "uri missing", ref: at("out/a.txt", { uri: undefined }), expect: "missing-uri" },
  { name: "uri empty", ref: at("out/a.txt", { uri: "" }), expect: "missing-uri" },
  {
    name: "media_type missing",
    ref: at("out/a.txt", { media_type: undefined }),
    expect: "missing-media-type",
  },
  { name: "summary not a string", ref: at("out/a.txt", { summary: 5 }), expect: "field-type" },
  { name: "sha256 not a string", ref: at("out/a.txt", { sha256: 5 }), expect: "field-type" },
  { name: "size_bytes string", ref: at("out/a.txt", { size_bytes: "15" }), expect: "field-type" },
  // --- URI form
  { name: "relative uri", ref: raw(() => "out/a.txt"), expect: "uri-scheme" },
  { name: "bare absolute path", ref: raw((f) => `${f.out}/a.txt`), expect: "uri-scheme" },
  {
    name: "file:/abs (no authority)",
    ref: raw((f) => `file:${f.out}/a.txt`),
    expect: "uri-scheme",
  },
  { name: "file:relative", ref: raw(() => "file:out/a.txt"), expect: "uri-scheme" },
  { name: "uppercase scheme", ref: raw((f) => `FILE://${f.out}/a.txt`), expect: "uri-scheme" },
  { name: "http scheme", ref: raw((f) => `http://host${f.out}/a.txt`), expect: "uri-scheme" },
  { name: "file:// alone", ref: raw(() => "file://"), expect: "uri-scheme" },
  { name: "host", ref: raw((f) => `file://evil.example${f.out}/a.txt`), expect: "uri-host" },
  { name: "localhost", ref: raw((f) => `file://localhost${f.out}/a.txt`), expect: "uri-host" },
  { name: "userinfo and host", ref: raw((f) => `file://u@h${f.out}/a.txt`), expect: "uri-host" },
  { name: "relative after authority", ref: raw(() => "file://out/a.txt"), expect: "uri-host" },
  { name: "query", ref: raw((f) => `file://${f.out}/a.txt?x=1`), expect: "uri-query" },
  { name: "empty query", ref: raw((f) => `file://${f.out}/a.txt?`), expect: "uri-query" },
  { name: "fragment", ref: raw((f) => `file://${f.out}/a.txt#top`), expect: "uri-fragment" },
  { name: "empty fragment", ref: raw((f) => `file://${f.out}/a.txt#`), expect: "uri-fragment" },
  {
    name: "encoded ? is a name, not a query",
    ref: raw((f) => `file://${f.out}/a.txt%3Fx`),
    expect: "not-found",
  },
  // --- traversal in every encoding
  { name: "raw ..", ref: raw((f) => `file://${f.out}/../secret.txt`), expect: "path-not-clean" },
  {
    name: "%2e%2e",
    ref: raw((f) => `file://${f.out}/%2e%2e/secret.txt`),
    expect: "path-not-clean",
  },
  {
    name: "%2E%2E",
    ref: raw((f) => `file://${f.out}/%2E%2E/secret.txt`),
    expect: "path-not-clean",
  },
  { name: ".%2e", ref: raw((f) => `file://${f.out}/.%2e/secret.txt`), expect: "path-not-clean" },
  { name: "%2e.", ref: raw((f) => `file://${f.out}/%2e./secret.txt`), expect: "path-not-clean" },
  {
    name: "%2f-joined traversal",
    ref: raw((f) => `file://${f.out}%2f..%2fsecret.txt`),
    expect: "path-not-clean",
  },
  {
    name: "%2F..%2F",
    ref: raw((f) => `file://${f.out}/sub%2F..%2F..%2Fsecret.txt`),
    expect: "path-not-clean",
  },
  {
    name: "%252e%252e",
    ref: raw((f) => `file://${f.out}/%252e%252e/secret.txt`),
    expect: "path-double-encoded",
  },
  {
    name: "%252f",
    ref: raw((f) => `file://${f.out}%252f..%252fsecret.txt`),
    expect: "path-double-encoded",
  },
  {
    name: "%25%32%65 (encoded escape)",
    ref: raw((f) => `file://${f.out}/%25%32%65%25%32%65/x`),
    expect: "path-double-encoded",
  },
  {
    name: "literal %41 name is refused",
    ref: raw((f) => `file://${f.out}/%2541.txt`),
    expect: "path-double-encoded",
  },
  {
    name: "overlong %c0%ae",
    ref: raw((f) => `file://${f.out}/%c0%ae%c0%ae/secret.txt`),
    expect: "uri-encoding",
  },
  {
    name: "overlong %c0%af slash",
    ref: raw((f) => `file://${f.out}/..%c0%afsecret.txt`),
    expect: "uri-encoding",
  },
  {
    name: "overlong 3-byte %e0%80%ae",
    ref: raw((f) => `file://${f.out}/%e0%80%ae%e0%80%ae/x`),
    expect: "uri-encoding",
  },
  { name: "invalid UTF-8 %ff", ref: raw((f) => `file://${f.out}/%ff.txt`), expect: "uri-encoding" },
  { name: "bad escape %zz", ref: raw((f) => `file://${f.out}/%zz.txt`), expect: "uri-encoding" },
  {
    name: "truncated escape %2",
    ref: raw((f) => `file://${f.out}/a.txt%2`),
    expect: "uri-encoding",
  },
  { name: "lone surrogate", ref: raw((f) => `file://${f.out}/\uD800.txt`), expect: "uri-encoding" },
  {
    name: "raw backslash traversal",
    ref: raw((f) => `file://${f.out}/..\\secret.txt`),
    expect: "path-backslash",
  },
  {
    name: "encoded backslash %5c",
    ref: raw((f) => `file://${f.out}/..%5csecret.txt`),
    expect: "path-backslash",
  },
  { name: "encoded NUL", ref: raw((f) => `file://${f.out}/a.txt%00.png`), expect: "path-nul" },
  { name: "raw NUL", ref: raw((f) => `file://${f.out}/a.txt\0`), expect: "path-nul" },
  { name: "dot element", ref: raw((f) => `file://${f.out}/./a.txt`), expect: "path-not-clean" },
  {
    name: "encoded dot element",
    ref: raw((f) => `file://${f.out}/%2e/a.txt`),
    expect: "path-not-clean",
  },
  { name: "double slash", ref: raw((f) => `file://${f.out}//a.txt`), expect: "path-not-clean" },
  {
    name: "four slashes (UNC-like)",
    ref: raw((f) => `file:///${f.out}/a.txt`),
    expect: "path-not-clean",
  },
  { name: "trailing slash", ref: raw((f) => `file://${f.out}/sub/`), expect: "path-not-clean" },
  { name: "file:/// alone", ref: raw(() => "file:///"), expect: "path-not-clean" },
];
