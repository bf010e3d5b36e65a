/**
 * `tools call --stderr` copies what a tool prints to stderr to the terminal — where an
 * agent driving the CLI reads it too: protected values are redacted there as in results,
 * also when the value is split across two writes.
 *
 * The value's variable is named for this file alone: the CLI reads it from this process's
 * environment, which test files running meanwhile on other threads share (another file
 * setting and deleting the same name would take it away mid-run).
 *
 * @module
 */

import path from "node:path";
import { runCapture } from "../helpers/cli.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { cleanText } from "../../lib/text/text_clean.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { assertTextHasNoPart, VALUE } from "./_helpers.ts";
import assert from "node:assert/strict";

const TOML = `[artifacts.app]\npath = "app"\n\n[artifacts.app.evals.review]\naudience = "agent"\n
[artifacts.app.views.agent_tools.noisy]
description = "Prints data/a.txt and data/b.txt to stderr, with a pause between them."
protocol = "plain"
command = "sh"
args = ["-c", "cat data/a.txt >&2; sleep 0.05; cat data/b.txt >&2; echo done"]

[artifacts.app.views.agent_tools.err]
description = "Prints data/<file> to stderr."
protocol = "plain"
command = "sh"
args = ["-c", "cat data/$0 >&2; echo done", "{file}"]
input_schema = { type = "object", properties = { file = { type = "string" } }, required = ["file"] }

[plugins]
enable = ["protected-values"]

[plugins.protected-values]
provider = "env"
env = { deploy = "DEPLOY_TOKEN_STDERR_COPY" }
`;

Deno.test("tools call --stderr never copies a protected value to the terminal", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/data/a.txt": `whole ${VALUE}\nsplit ${VALUE.slice(0, 12)}`,
    "app/data/b.txt": `${VALUE.slice(12)} end\n`,
  });
  Deno.env.set("DEPLOY_TOKEN_STDERR_COPY", VALUE);
  try {
    const run = await runCapture([
      "tools",
      "call",
      "noisy_app",
      "--eval",
      "app/review",
      "--stderr",
      "--no-lock",
      "--repo",
      tmp.root,
    ]);
    assert.equal(run.code, 0, run.err);
    assertTextHasNoPart([run.out, run.err], VALUE, "tools call --stderr");
    assert.match(run.err, /whole \[protected\]\nsplit \[protected\] end\n/);
  } finally {
    Deno.env.delete("DEPLOY_TOKEN_STDERR_COPY");
  }
});

Deno.test("a value split across two calls' stderr is never copied in parts", async () => {
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/data/a.txt": `one ${VALUE.slice(0, 12)}`,
    "app/data/b.txt": `${VALUE.slice(12)} two\n`,
    "app/data/c.txt": `three ${VALUE.slice(0, 6)}`,
  });
  let seen = "";
  const decoder = new TextDecoder();
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: path.join(tmp.root, ".state"),
    lock: false,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DEPLOY_TOKEN_STDERR_COPY: VALUE },
    stderr: (chunk) => void (seen += decoder.decode(chunk, { stream: true })),
  });
  try {
    for (const file of ["a.txt", "b.txt", "c.txt"]) {
      const r = await reg.call("err_app", { file });
      assert.equal(r.isError, false, JSON.stringify(r));
    }
  } finally {
    await reg.close();
  }
  assertTextHasNoPart([seen], VALUE, "stderr across calls");
  assert.equal(seen, "one [protected] two\nthree ");
});

Deno.test("escape sequences, control and format characters inside a value never keep it from the terminal", async () => {
  // A terminal draws none of them, so it would show the value whole: the copy is cleaned
  // first and searched as it is shown (removing them after the search would form it again).
  const cut = (at: number, junk: string) => `${VALUE.slice(0, at)}${junk}${VALUE.slice(at)}`;
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/data/a.txt": `csi ${cut(5, "\x1b[0m")} osc ${cut(9, "\x1b]0;title\x07")}\n`,
    "app/data/b.txt": `ctl ${cut(3, "\x07\x7f\x9b\u0000")} fmt ${cut(14, "\u200b\u2060\u202e")}\n`,
    // An escape sequence cut by the end of a call, completed by the next call's output.
    "app/data/c.txt": `split ${VALUE.slice(0, 7)}\x1b[3`,
    "app/data/d.txt": `1m${VALUE.slice(7)} end\n`,
  });
  let seen = "";
  const decoder = new TextDecoder();
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: path.join(tmp.root, ".state"),
    lock: false,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DEPLOY_TOKEN_STDERR_COPY: VALUE },
    stderr: (chunk) => void (seen += decoder.decode(chunk, { stream: true })),
  });
  try {
    for (const file of ["a.txt", "b.txt", "c.txt", "d.txt"]) {
      const r = await reg.call("err_app", { file });
      assert.equal(r.isError, false, JSON.stringify(r));
    }
  } finally {
    await reg.close();
  }
  const shown = cleanText(seen).replace(/\p{Cf}/gu, ""); // what a terminal draws
  assertTextHasNoPart([seen, shown], VALUE, "stderr with escapes");
  assert.equal(
    seen,
    "csi [protected] osc [protected]\nctl [protected] fmt [protected]\nsplit [protected] end\n",
  );
});

Deno.test("stderr ending with a line break is copied whole once the registry closes", async () => {
  // "Q\n" may begin the value split over two lines (it is how the value begins), so a pause
  // between calls holds it; at close nothing follows, and it is printed.
  await using tmp = await tempWorkspace(TOML, {
    "app/README.md": "# app\n",
    "app/data/a.txt": `exit status Q\n`,
  });
  let seen = "";
  const decoder = new TextDecoder();
  const reg = await Registry.open(await loadWorkspace(tmp.root), "app/review", {
    stateDir: path.join(tmp.root, ".state"),
    lock: false,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", DEPLOY_TOKEN_STDERR_COPY: VALUE },
    stderr: (chunk) => void (seen += decoder.decode(chunk, { stream: true })),
  });
  try {
    const r = await reg.call("err_app", { file: "a.txt" });
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.equal(seen, "exit status ");
  } finally {
    await reg.close();
  }
  assert.equal(seen, "exit status Q\n");
});
