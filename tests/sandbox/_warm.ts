/**
 * What the warm-sandbox tests compare: a probe that reports what its process sees, values
 * no quoting mistake survives, and the report with per-call values masked.
 *
 * @module
 */

import { Buffer } from "node:buffer";

/** A `/bin/sh` probe: environ, argv (hex), cwd, stdin (hex), and the descriptor table. */
export const PROBE = `#!/bin/sh
hex() { od -An -v -tx1 | tr -d ' \\n'; }
echo "env $(hex < /proc/$$/environ)"
echo "argv $(hex < /proc/$$/cmdline)"
echo "cwd $(readlink /proc/$$/cwd)"
echo "stdin $(hex)"
for f in /proc/$$/fd/*; do echo "fd \${f##*/} $(readlink "$f" | sed 's/:\\[[0-9]*\\]//')"; done
`;

/** Values no quoting mistake survives. */
export const TRICKY = [
  `it's "quoted" 'twice' '\\''`,
  "line1\nline2\n\n",
  "$(touch /tmp/pwned) `id` ${HOME} $$ \\$x",
  "back\\slash\\\\ \\n \\' end\\",
  "é ā \u0080\u009f\u00ff 漢字 😀 \ud800 lone \udfff",
  "\t\r\u0001\u001b[0m ; & | < > * ? [ ] { } ~ # !",
  "",
  "-n",
];

/** The probe's report with per-call values (group tag, call and registry dirs) masked and
 * the environment sorted (dash exports in its own order). */
export function normalize(report: string): string {
  const mask = (s: string) =>
    s.replace(/calls\/[0-9a-f]{24}/g, "calls/CALL").replace(/artifacts\/[0-9a-f]{24}/g, "REG");
  return report.split("\n").map((line) => {
    if (!line.startsWith("env ") && !/^\S+ /.test(line)) return line;
    const [kind, hex] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
    if (kind === "stdin") return `stdin ${mask(Buffer.from(hex, "hex").toString("utf8"))}`;
    if (kind !== "env") return mask(line);
    const vars = Buffer.from(hex, "hex").toString("utf8").split("\0").filter((v) => v !== "");
    const masked = vars.map((v) => v.startsWith("_TOOLHOST_GROUP_TAG=") ? "TAG" : mask(v));
    return `env ${JSON.stringify(masked.sort())}`;
  }).join("\n");
}

/** A json tool that reports its stdin and its environment, both hex-encoded. */
export const JSON_PROBE = `#!/bin/sh
printf '{"content":[{"type":"text","text":"%s %s"}]}' "$(od -An -v -tx1 | tr -d ' \\n')" "$(od -An -v -tx1 < /proc/$$/environ | tr -d ' \\n')"
`;
