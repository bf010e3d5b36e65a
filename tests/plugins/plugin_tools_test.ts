import assert from "node:assert/strict";
import { PreparationFailed } from "../../lib/errors/errors.ts";
import { definePlugin, jsonResult, textResult } from "../../lib/plugins/mod.ts";
import { Registry } from "../../lib/registry/registry.ts";
import { loadWorkspace } from "../../lib/workspace/load_workspace.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { BASE, ENV, errText, logLines, open, text } from "./_helpers.ts";

const calls: string[] = [];
const tools = definePlugin({
  name: "extras",
  tools: [
    {
      name: "echo_note",
      description: "Echo a note about {artifactName}.",
      inputSchema: {
        type: "object",
        properties: { note: { type: "string" } },
        required: ["note"],
        additionalProperties: false,
      },
      run(args, ctx) {
        calls.push(`${ctx.call.tool}:${ctx.files?.declaring.id ?? "-"}`);
        return jsonResult({ note: args.note, artifact: ctx.files?.declaring.id ?? null });
      },
    },
    {
      name: "whoami",
      description: "Always listed.",
      inputSchema: { type: "object", additionalProperties: false },
      alwaysListed: true,
      run: (_a, ctx) => textResult(`eval=${ctx.call.eval}`),
    },
    {
      name: "broken_tool",
      description: "Throws.",
      inputSchema: { type: "object", additionalProperties: false },
      run: () => {
        throw new Error("tool internals 555");
      },
    },
    {
      name: "bad_output",
      description: "Returns an invalid result.",
      inputSchema: { type: "object", additionalProperties: false },
      // deno-lint-ignore no-explicit-any
      run: () => ({ content: [] }) as any,
    },
  ],
});

const DECLARED = `${BASE}
[artifacts.app.views.agent_tools.note]
builtin = "echo_note"

[artifacts.app.views.agent_tools.boom]
builtin = "broken_tool"

[artifacts.app.views.agent_tools.bad]
builtin = "bad_output"
`;

Deno.test("plugin tools: declared ones are listed like built-ins, others only when always listed", async () => {
  const w = await open(DECLARED, { plugins: [tools] });
  try {
    const listed = w.reg.list();
    const names = listed.map((t) => t.name);
    assert.ok(names.includes("note_app") && names.includes("whoami"));
    assert.ok(!names.includes("echo_note") && !names.includes("broken_tool"));
    const note = listed.find((t) => t.name === "note_app")!;
    assert.equal(note.description, "Echo a note about app.");
    assert.deepEqual(note.inputSchema.required, ["note"]);
    const r = await w.reg.call("note_app", { note: "hi" });
    assert.deepEqual((r.content[0] as { data: unknown }).data, { note: "hi", artifact: "app" });
    assert.match(errText(await w.reg.call("note_app", {})), /do not match the tool.s input schema/);
    assert.equal(text(await w.reg.call("whoami", {})), "eval=app/review");
    const boom = errText(await w.reg.call("boom_app", {}));
    assert.match(boom, /failed unexpectedly/);
    assert.ok(!boom.includes("555"));
    assert.match(logLines(w.stateDir, "plugins.log").join("\n"), /tool internals 555/);
    assert.match(errText(await w.reg.call("bad_app", {})), /output was invalid/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("plugin tools: undeclarable without the plugin; a declared tool needs an active plugin", async () => {
  const tw = await tempWorkspace(DECLARED, { "app/README.md": "x" });
  try {
    await assert.rejects(loadWorkspace(tw.root), /unknown built-in/);
    const ws = await loadWorkspace(tw.root, { plugins: [tools] });
    await assert.rejects(
      Registry.open(ws, "app/review", { stateDir: `${tw.root}/.s`, env: ENV }),
      (e) =>
        e instanceof PreparationFailed &&
        /note\.builtin: plugin `extras` is not active/.test(e.message),
    );
  } finally {
    await tw.cleanup();
  }
});

Deno.test("plugin tools: args and human views are declaration errors", async () => {
  const tw = await tempWorkspace(
    `${BASE}\n[artifacts.app.views.agent_tools.n2]\nbuiltin = "echo_note"\nargs = ["x"]\n`,
    { "app/README.md": "x" },
  );
  try {
    await assert.rejects(
      loadWorkspace(tw.root, { plugins: [tools] }),
      /n2\.args: plugin tools take the model's input/,
    );
  } finally {
    await tw.cleanup();
  }
});

Deno.test("an enabled library plugin must be passed to Registry.open", async () => {
  const tw = await tempWorkspace(`${BASE}\n[plugins]\nenable = ["extras"]\n`, {
    "app/README.md": "x",
  });
  try {
    const ws = await loadWorkspace(tw.root, { plugins: [tools] });
    await assert.rejects(
      Registry.open(ws, "app/review", { stateDir: `${tw.root}/.s`, env: ENV }),
      /plugins\.enable names `extras`, which is not passed/,
    );
  } finally {
    await tw.cleanup();
  }
});
