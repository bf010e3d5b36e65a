#!/usr/bin/env node
// A json-protocol tool: one request on stdin, one result object on stdout.
// It counts lines, words and bytes of a file inside its Artifact.
import { readFileSync, realpathSync } from "node:fs";
import { resolve, sep } from "node:path";

const request = JSON.parse(readFileSync(0, "utf8"));
const root = realpathSync(request.context.artifactPath);
const target = realpathSync(resolve(root, request.args.file));
if (target !== root && !target.startsWith(root + sep)) {
  console.log(JSON.stringify({
    isError: true,
    content: [{ type: "text", text: "The file must be inside the Artifact." }],
  }));
  process.exit(0);
}
const text = readFileSync(target, "utf8");
const data = {
  file: request.args.file,
  lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
  words: text.split(/\s+/).filter(Boolean).length,
  bytes: Buffer.byteLength(text),
};
console.log(JSON.stringify({
  content: [
    { type: "text", text: `${data.file}: ${data.lines} lines, ${data.words} words` },
    { type: "json", data },
  ],
}));
