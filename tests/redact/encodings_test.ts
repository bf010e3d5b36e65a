/**
 * Encoders' forms: a protected value written into a workspace file by a common encoder
 * other than JavaScript's own (PHP's and Go's JSON, quoted literals, lower-case percent
 * escapes, form bodies, HTML, CRLF or CR line breaks, UTF-16) and handed out as the file
 * holds it (`files_read`, the `read` built-in, `grep`). Each case read the value back in
 * the clear while the forms were only JavaScript's encoders' (`JSON.stringify`,
 * `encodeURIComponent`, …) and LF line breaks.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Redactor } from "../../lib/redact/redactor.ts";
import { MAX_BREAK_UNITS } from "../../lib/redact/wrapped.ts";
import { assertNoPart, open } from "./_helpers.ts";

/** A secret as cloud providers issue them: `/`, `+`, `=`, and the specials encoders escape. */
const SPECIAL = "K9/PQ+ZR7&LM<WX>TY2'HS\"BN=VC%DU";
/** A multi-line value (a PEM key): capitals, digits and `-` only. */
const PEM =
  "-----BEGIN KEY-----\nMIIEQZXKPWNBRTVYHJMLDSGCFXQWE\nAAAABBBBCCCCDDDDEEEEFFFF\n-----END KEY-----";

/** `files_read` of each file (a value `value` protected) shows no part of it. */
async function readsNone(value: string, files: Record<string, string | Uint8Array>) {
  const w = await open(files, value);
  try {
    for (const f of Object.keys(files)) {
      const r = await w.reg.call("read_app", { path: `data/${f}` });
      assert.equal(r.isError, false, f);
      assertNoPart(r, value, `files_read ${f}`);
    }
  } finally {
    await w.cleanup();
  }
}

const escapeAll = (s: string, map: Record<string, string>) =>
  [...s].map((c) => map[c] ?? c).join("");

Deno.test("a JSON file written with `\\/` (PHP's json_encode) hands out no part of the value", async () => {
  await readsNone(SPECIAL, {
    "php.json": JSON.stringify({ token: SPECIAL }).replaceAll("/", "\\/"),
  });
});

Deno.test("a JSON file written by Go (`<`, `>`, `&` as \\u003c…) hands out no part of it", async () => {
  const go = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026" };
  await readsNone(SPECIAL, {
    "go.json": escapeAll(JSON.stringify({ token: SPECIAL }), go),
  });
});

Deno.test("a value in a single-quoted literal (`\\'`, Python's repr) is redacted", async () => {
  await readsNone(SPECIAL, {
    "conf.py": `TOKEN = '${SPECIAL.replaceAll("'", "\\'")}'\n`,
  });
});

Deno.test("a value percent-encoded with lower-case hex, or as a form body, is redacted", async () => {
  const lower = (s: string) => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  await readsNone(SPECIAL, {
    "lower.txt": `https://h/cb?token=${lower(encodeURIComponent(SPECIAL))}&x=1\n`,
    "form.txt": `${new URLSearchParams({ token: SPECIAL, x: "1" })}\n`,
    "form_lower.txt": `${lower(new URLSearchParams({ token: SPECIAL }).toString())}\n`,
  });
});

Deno.test("a value HTML-escaped (PHP, Python and Go entity styles) is redacted", async () => {
  const base = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
  await readsNone(SPECIAL, {
    "php.html": `<meta content="${escapeAll(SPECIAL, { ...base, '"': "&quot;", "'": "&#39;" })}">`,
    "py.html": `<meta content="${escapeAll(SPECIAL, { ...base, '"': "&quot;", "'": "&#x27;" })}">`,
    "go.html": `<meta content="${escapeAll(SPECIAL, { ...base, '"': "&#34;", "'": "&#39;" })}">`,
  });
});

Deno.test("a multi-line value in a file with CRLF line breaks is redacted", async () => {
  const crlf = `key:\r\n${PEM.replaceAll("\n", "\r\n")}\r\n`;
  await readsNone(PEM, { "crlf.pem": crlf });
  const w = await open({ "crlf.pem": crlf }, PEM);
  try {
    const lines = await w.reg.call("lines_app", { path: "data/crlf.pem" });
    assertNoPart(lines, PEM, "read built-in");
    const grep = await w.reg.call("grep_app", { pattern: "[A-Z]", path: "data" });
    assertNoPart(grep, PEM, "grep");
  } finally {
    await w.cleanup();
  }
});

Deno.test("a value in a UTF-16 file (as Windows tools write) comes back base64 without it", async () => {
  const VALUE = "QZXK-PWNBRTVY-HJMLDSGCF-XQWE";
  const text = `TOKEN=${VALUE}\r\n`;
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
  const be = Buffer.from(Buffer.from(text, "utf16le")).swap16();
  const w = await open({ "le.env": le, "be.env": be }, VALUE);
  try {
    for (const f of ["le.env", "be.env"]) {
      const r = await w.reg.call("read_app", { path: `data/${f}` });
      assert.equal(r.isError, false);
      const b64 = r.content.flatMap((b) => b.type === "text" ? [b.text] : []).join("");
      const bytes = Buffer.from(b64, "base64");
      // Each character of the value is one byte (its other byte is 0): dropping NULs
      // decodes either byte order.
      const decoded = bytes.toString("latin1").replaceAll("\0", "");
      assert.ok(!decoded.includes(VALUE.slice(0, 12)), `${f}: ${JSON.stringify(decoded)}`);
    }
  } finally {
    await w.cleanup();
  }
});

Deno.test("cost guard: a value of letters, digits and `-` gains only its UTF-16 forms", () => {
  // Encoders leave such a value as it is; what it gains is its UTF-16 bytes and their
  // base64 (the longest form, 56 bytes as 74 characters). That form may be wrapped with a
  // break (CRLF and an indent: at most MAX_BREAK_UNITS) between any two characters, so
  // every cut holds back 73 + 73 breaks.
  const r = new Redactor();
  r.add("QZXK-PWNBRTVY-HJMLDSGCF-XQWE");
  assert.ok(r.needles().length <= 14, `${r.needles().length} forms`);
  assert.ok(r.maxUnits <= 74 + 73 * MAX_BREAK_UNITS, `longest form ${r.maxUnits}`);
});

Deno.test("an environment dump (export -p, set, declare -p, printf %q) shows no part of a granted value", async () => {
  // The shells quote a value for re-reading: `\$`, `\"`, `'\''`, `'"'"'`, `\&`.
  const value = "K9/PQ+ZR7&LM<WX>TY2'HS\"BN=VC%DU$XQ`YZ\\WV";
  const w = await open({}, value);
  try {
    const dumps = [
      "bash -c 'export -p'",
      "bash -c 'set'",
      "bash -c 'declare -p TOKEN'",
      `bash -c 'printf "%q\\n" "$TOKEN"'`,
      "dash -c 'export -p; set'",
    ];
    for (const command of dumps) {
      const r = await w.reg.call("shell_app", {
        command,
        protectedBindings: { TOKEN: "protected://deploy" },
      });
      assert.equal(r.isError, false, command);
      const out = JSON.stringify(r);
      assert.ok(out.includes("[protected]"), `${command}: ${out.slice(0, 300)}`);
      assertNoPart(r, value, command);
    }
  } finally {
    await w.cleanup();
  }
});
