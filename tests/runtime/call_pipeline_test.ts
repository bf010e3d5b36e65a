/**
 * The call pipeline end to end through Registry.call: admission before anything exists,
 * admitted targets (file and folder Artifacts) re-validated before every call, json context for file Artifacts,
 * odek envelopes rendered and readable through get_artifact_field, and the CLI's exit codes.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { Registry } from "../../lib/registry/registry.ts";
import type { ToolResult } from "../../lib/results/types.ts";
import { withWorkspace } from "../helpers/workspace.ts";
import { runCapture } from "../helpers/cli.ts";

// A json tool that leaves a marker when it runs, echoes its request's context, and can
// hand back an odek envelope for a file it writes into TOOLHOST_ARTIFACT_DIR.
const TOOL = `#!/bin/sh
touch "$MARKER_DIR/ran"
req=$(cat)
case "$req" in
  *'"mode":"envelope"'*)
    printf 'hello artifact\\n' > "$TOOLHOST_ARTIFACT_DIR/a.txt"
    printf '{"content":[{"type":"text","text":"{\\\\"schema\\\\":\\\\"odek.tool-result/v1\\\\",\\\\"text\\\\":\\\\"wrote it\\\\",\\\\"artifacts\\\\":[{\\\\"schema\\\\":\\\\"odek.artifact-ref/v1\\\\",\\\\"id\\\\":\\\\"a1\\\\",\\\\"uri\\\\":\\\\"file://%s/a.txt\\\\",\\\\"media_type\\\\":\\\\"text/plain\\\\"}]}"}]}' "$TOOLHOST_ARTIFACT_DIR" ;;
  *'"mode":"escape"'*)
    printf '{"content":[{"type":"text","text":"{\\\\"schema\\\\":\\\\"odek.tool-result/v1\\\\",\\\\"text\\\\":\\\\"x\\\\",\\\\"artifacts\\\\":[{\\\\"schema\\\\":\\\\"odek.artifact-ref/v1\\\\",\\\\"id\\\\":\\\\"a2\\\\",\\\\"uri\\\\":\\\\"file:///etc/hostname\\\\",\\\\"media_type\\\\":\\\\"text/plain\\\\"}]}"}]}' ;;
  *) printf '{"content":[{"type":"json","data":{"cwd":"%s","request":%s}}]}' "$PWD" "$req" ;;
esac
`;

const TOML = `
[artifacts.app]
path = "app"

[artifacts.notes]
path = "docs/notes.md"

[artifacts.app.evals.review]
audience = "agent"
references = ["notes"]

[artifacts.app.views.agent_tools.read]
builtin = "read"

[artifacts.notes.views.agent_tools.probe]
description = "Probe."
protocol = "json"
command = "../tools/probe.sh"
args = []
input_schema = { type = "object", properties = { mode = { type = "string", maxLength = 16 } }, additionalProperties = false }
`;

const FILES = {
  "app/a.md": "alpha\n",
  "docs/notes.md": "notes\n",
  "tools/probe.sh": { text: TOOL, mode: 0o755 },
};

async function withRegistry(
  fn: (reg: Registry, root: string, marker: string) => Promise<void>,
): Promise<void> {
  await withWorkspace(TOML, FILES, async (root) => {
    const marker = join(root, "marker");
    Deno.mkdirSync(marker);
    const ws = await loadWorkspace(root);
    const env = { ...Deno.env.toObject(), MARKER_DIR: marker };
    const reg = await Registry.open(ws, "app/review", { env });
    try {
      await fn(reg, root, marker);
    } finally {
      await reg.close();
    }
  });
}

function text(r: ToolResult): string {
  return r.content.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n");
}

Deno.test("json context of a file Artifact: artifactPath names the file, cwd is its folder", async () => {
  await withRegistry(async (reg, root) => {
    const r = await reg.call("probe_notes", {});
    assert.equal(r.isError, false, text(r));
    const data = (r.content[0] as { data: { cwd: string; request: Record<string, never> } }).data;
    const ctx = data.request.context as Record<string, unknown>;
    assert.equal(ctx.artifactId, "notes");
    assert.equal(ctx.artifactPath, join(root, "docs/notes.md"));
    assert.equal(data.cwd, join(root, "docs"));
    assert.equal((data.request as Record<string, number>).version, 1);
    assert.equal("executionPaths" in ctx, false, "executionPaths is omitted when empty");
    const scope = ctx.scope as Record<string, { path: string; kind: string }>;
    assert.deepEqual(Object.keys(scope).sort(), ["app", "notes"]);
    assert.equal(scope.notes.kind, "file");
  });
});

for (
  const [label, mutate] of [
    ["missing", (p: string) => rmSync(p)],
    ["replaced by a symlink", (p: string) => {
      renameSync(p, `${p}.bak`);
      symlinkSync(`${p}.bak`, p);
    }],
    ["replaced by a folder", (p: string) => {
      rmSync(p);
      Deno.mkdirSync(p);
    }],
  ] as const
) {
  Deno.test(`a file Artifact target ${label} fails every call before anything runs`, async () => {
    await withRegistry(async (reg, root, marker) => {
      mutate(join(root, "docs/notes.md"));
      for (const [tool, args] of [["probe_notes", {}], ["read_app", { path: "a.md" }]] as const) {
        const r = await reg.call(tool, args);
        assert.equal(r.isError, true, `${tool}: ${text(r)}`);
        assert.match(text(r), /file Artifact `notes`/);
      }
      assert.equal(existsSync(join(marker, "ran")), false, "the command ran");
      assert.equal(existsSync(join(reg.stateDir, "calls")), false, "a call directory was made");
    });
  });
}

for (
  const [label, mutate] of [
    ["missing", (p: string) => rmSync(p, { recursive: true })],
    ["replaced by a symlink to elsewhere", (p: string) => {
      renameSync(p, `${p}.bak`);
      Deno.mkdirSync(`${p}.evil`);
      writeFileSync(join(`${p}.evil`, "a.md"), "SECRET-outside\n");
      symlinkSync(`${p}.evil`, p);
    }],
    ["replaced by a file", (p: string) => {
      rmSync(p, { recursive: true });
      writeFileSync(p, "x");
    }],
  ] as const
) {
  Deno.test(`an Artifact folder ${label} fails every call before anything runs`, async () => {
    await withRegistry(async (reg, root, marker) => {
      mutate(join(root, "app"));
      for (const [tool, args] of [["probe_notes", {}], ["read_app", { path: "a.md" }]] as const) {
        const r = await reg.call(tool, args);
        assert.equal(r.isError, true, `${tool}: ${text(r)}`);
        assert.match(text(r), /Artifact folder `app`/);
        assert.equal(text(r).includes("SECRET"), false);
        assert.equal(text(r).includes(root), false, "the message shows a physical path");
      }
      assert.equal(existsSync(join(marker, "ran")), false, "the command ran");
    });
  });
}

Deno.test("a command swapped for a symlink out of the workspace is refused at call time", async () => {
  await withRegistry(async (reg, root, marker) => {
    const probe = join(root, "tools/probe.sh");
    rmSync(probe);
    symlinkSync("/bin/sh", probe);
    const r = await reg.call("probe_notes", {});
    assert.equal(r.isError, true, text(r));
    assert.match(text(r), /outside the workspace/);
    assert.equal(text(r).includes(root), false);
    assert.equal(existsSync(join(marker, "ran")), false);
  });
});

Deno.test("a restored Artifact folder is served again (nothing was pinned stale)", async () => {
  await withRegistry(async (reg, root) => {
    const app = join(root, "app");
    rmSync(app, { recursive: true });
    assert.equal((await reg.call("read_app", { path: "a.md" })).isError, true);
    Deno.mkdirSync(app);
    writeFileSync(join(app, "a.md"), "beta\n");
    const r = await reg.call("read_app", { path: "a.md" });
    assert.equal(r.isError, false, text(r));
    assert.match(text(r), /beta/);
  });
});

Deno.test("rejected arguments: nothing runs, no directory is created, the value never appears", async () => {
  await withRegistry(async (reg, _root, marker) => {
    const secret = "SECRET-hunter2-value";
    const r = await reg.call("probe_notes", { mode: secret });
    assert.equal(r.isError, true);
    assert.equal(JSON.stringify(r).includes(secret), false);
    assert.equal(existsSync(join(marker, "ran")), false);
    assert.equal(existsSync(reg.stateDir), false, "state dir created before admission");
  });
});

Deno.test("an odek envelope is rendered, never shows a path, and its artifact can be read", async () => {
  await withRegistry(async (reg) => {
    const r = await reg.call("probe_notes", { mode: "envelope" });
    assert.equal(r.isError, false, text(r));
    const t = text(r);
    assert.match(t, /^wrote it\n\[artifact\] id="a1"/);
    assert.equal(t.includes(reg.artifactDir), false, "the render leaks a path");
    const got = await reg.call("get_artifact_field", { artifact_ref: "a1", field: "content" });
    assert.equal(got.isError, false, text(got));
    assert.equal(
      (got.content[0] as { data: { content: string } }).data.content,
      "hello artifact\n",
    );
  });
});

Deno.test("an envelope ref outside the artifact roots fails the whole result", async () => {
  await withRegistry(async (reg) => {
    const r = await reg.call("probe_notes", { mode: "escape" });
    assert.equal(r.isError, true);
    assert.match(text(r), /rule outside-roots/);
    assert.equal(text(r).includes("/etc/hostname"), false);
  });
});

Deno.test("close removes the registry's artifact directory", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    Deno.mkdirSync(join(root, "marker"));
    const ws = await loadWorkspace(root);
    const reg = await Registry.open(ws, "app/review", {
      env: { ...Deno.env.toObject(), MARKER_DIR: join(root, "marker") },
    });
    await reg.call("probe_notes", { mode: "envelope" });
    assert.equal(existsSync(reg.artifactDir), true);
    await reg.close();
    assert.equal(existsSync(reg.artifactDir), false);
    assert.deepEqual(readdirSync(join(reg.stateDir, "artifacts")), []);
  });
});

Deno.test("tools call: exit 0 success, 1 error result, 2 bad invocation", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    writeFileSync(join(root, "marker"), "");
    const ok = await runCapture([
      "tools",
      "call",
      "read_app",
      "--repo",
      root,
      "--eval",
      "app/review",
      "--args",
      '{"path":"a.md"}',
    ]);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(JSON.parse(ok.out).isError, false);
    const err = await runCapture([
      "tools",
      "call",
      "read_app",
      "--repo",
      root,
      "--eval",
      "app/review",
      "--args",
      '{"path":"nope.md"}',
    ]);
    assert.equal(err.code, 1);
    assert.equal(JSON.parse(err.out).isError, true);
    const unknown = await runCapture([
      "tools",
      "call",
      "nope_app",
      "--repo",
      root,
      "--eval",
      "app/review",
    ]);
    assert.equal(unknown.code, 2);
    const badJson = await runCapture([
      "tools",
      "call",
      "read_app",
      "--repo",
      root,
      "--eval",
      "app/review",
      "--args",
      "{",
    ]);
    assert.equal(badJson.code, 2);
  });
});

Deno.test("a state directory that is a file gives an error result, never a raw error with a path", async () => {
  await withWorkspace(TOML, FILES, async (root) => {
    // Outside the workspace (inside it, Registry.open already refuses a non-folder).
    const stateFile = Deno.makeTempFileSync({ prefix: "toolhost-statefile-" });
    const reg = await Registry.open(await loadWorkspace(root), "app/review", {
      stateDir: stateFile,
      env: { ...Deno.env.toObject(), MARKER_DIR: root },
    });
    try {
      const r = await reg.call("probe_notes", {});
      assert.equal(r.isError, true);
      assert.match(text(r), /state directory \(ENOTDIR\)/);
      assert.equal(text(r).includes(stateFile), false, "a physical path was shown");
    } finally {
      await reg.close();
      Deno.removeSync(stateFile);
    }
  });
});
