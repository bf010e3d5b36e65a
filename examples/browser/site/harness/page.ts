/**
 * One browser tab driven over CDP: navigate, click, type, a bounded DOM text snapshot,
 * a PNG screenshot within the image limit, and a bounded console log.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import type { Cdp } from "./cdp.ts";

/** Largest snapshot text, bytes (the 64 KiB text rule), marker included. */
export const MAX_SNAPSHOT_BYTES = 64 * 1024;
/** Largest screenshot, bytes (the 4 MiB image rule). */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
/** Console entries kept (oldest dropped first). */
export const MAX_CONSOLE_ENTRIES = 200;
/** Longest console entry kept, characters. */
export const MAX_CONSOLE_CHARS = 1000;

const SNAPSHOT_JS = `(() => {
  const out = [];
  const walk = (n, depth) => {
    if (n.nodeType === 3) {
      const t = n.textContent.replace(/\\s+/g, " ").trim();
      if (t) out.push("  ".repeat(depth) + JSON.stringify(t));
      return;
    }
    if (n.nodeType !== 1) return;
    const tag = n.tagName.toLowerCase();
    if (tag === "script" || tag === "style" || tag === "head") return;
    let line = tag + (n.id ? "#" + n.id : "");
    const role = n.getAttribute("role");
    if (role) line += " role=" + role;
    if (tag === "input" || tag === "textarea") line += " value=" + JSON.stringify(n.value);
    if (tag === "a" && n.href) line += " href=" + JSON.stringify(n.href);
    out.push("  ".repeat(depth) + line);
    for (const c of n.childNodes) walk(c, depth + 1);
  };
  walk(document.body || document.documentElement, 0);
  return document.title + "\\n" + location.href + "\\n" + out.join("\\n");
})()`;

/** Cut `s` to at most `max` UTF-8 bytes, with a marker saying so. */
export function boundText(s: string, max: number, what: string): string {
  const bytes = Buffer.from(s, "utf8");
  if (bytes.length <= max) return s;
  const marker = `\n[${what} truncated: ${bytes.length} bytes, first part shown]`;
  let cut = bytes.subarray(0, max - Buffer.byteLength(marker)).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return cut + marker;
}

/** A tab attached to a flattened CDP session. */
export class Page {
  readonly #cdp: Cdp;
  readonly #session: string;
  readonly #logs: string[] = [];
  #dropped = 0;

  private constructor(cdp: Cdp, session: string) {
    this.#cdp = cdp;
    this.#session = session;
  }

  /**
   * Attach to the browser's first page (creating one if none), with a fixed viewport.
   *
   * @example
   * ```ts ignore
   * const page = await Page.attach(cdp, 800, 600);
   * ```
   */
  static async attach(cdp: Cdp, width: number, height: number): Promise<Page> {
    const { targetInfos } = await cdp.send("Target.getTargets") as {
      targetInfos: { targetId: string; type: string }[];
    };
    let targetId = targetInfos.find((t) => t.type === "page")?.targetId;
    if (targetId === undefined) {
      targetId = (await cdp.send("Target.createTarget", { url: "about:blank" })).targetId as string;
    }
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(cdp, sessionId as string);
    cdp.on("Runtime.consoleAPICalled", (p, s) => {
      if (s !== page.#session) return;
      const args = (p.args as { value?: unknown; description?: string }[] | undefined) ?? [];
      page.#log(`${p.type}: ${args.map((a) => a.description ?? String(a.value)).join(" ")}`);
    });
    cdp.on("Runtime.exceptionThrown", (p, s) => {
      if (s !== page.#session) return;
      const d = p.exceptionDetails as { text?: string; exception?: { description?: string } };
      page.#log(`exception: ${d?.exception?.description ?? d?.text ?? "unknown"}`);
    });
    await page.#send("Page.enable");
    await page.#send("Runtime.enable");
    await page.#send("Emulation.setDeviceMetricsOverride", {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return page;
  }

  #send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return this.#cdp.send(method, params, this.#session);
  }

  #log(line: string): void {
    this.#logs.push(line.slice(0, MAX_CONSOLE_CHARS));
    if (this.#logs.length > MAX_CONSOLE_ENTRIES) {
      this.#logs.shift();
      this.#dropped++;
    }
  }

  /** Navigate and wait for the load event; returns the final URL and title. */
  async open(url: string): Promise<{ url: string; title: string }> {
    const loaded = new Promise<void>((resolve) => {
      const off = this.#cdp.on("Page.loadEventFired", (_p, s) => {
        if (s === this.#session) {
          off();
          resolve();
        }
      });
    });
    let r = await this.#send("Page.navigate", { url });
    // The tab's first navigation (about:blank, from the command line) may still be
    // committing: it aborts ours. Once more, after it settles.
    for (let i = 0; i < 3 && r.errorText === "net::ERR_ABORTED"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await this.#send("Page.navigate", { url });
    }
    if (typeof r.errorText === "string") throw new Error(`The page did not load (${r.errorText}).`);
    await loaded;
    const info = await this.#eval("({ url: location.href, title: document.title })");
    return info as { url: string; title: string };
  }

  async #eval(expression: string): Promise<unknown> {
    const r = await this.#send("Runtime.evaluate", {
      expression,
      returnByValue: true,
      awaitPromise: true,
    }) as { result?: { value?: unknown }; exceptionDetails?: unknown };
    if (r.exceptionDetails !== undefined) throw new Error("The page script failed.");
    return r.result?.value;
  }

  /** Click the first element matching `selector`; false when none matches. */
  async click(selector: string): Promise<boolean> {
    return await this.#eval(`(() => {
      let el; try { el = document.querySelector(${
      JSON.stringify(selector)
    }); } catch { return false; }
      if (!el) return false; el.scrollIntoView({ block: "center" }); el.click(); return true;
    })()`) === true;
  }

  /** Focus the element matching `selector` and type `text` as real input; false when none. */
  async type(selector: string, text: string): Promise<boolean> {
    const found = await this.#eval(`(() => {
      let el; try { el = document.querySelector(${
      JSON.stringify(selector)
    }); } catch { return false; }
      if (!el) return false; el.focus(); return document.activeElement === el;
    })()`);
    if (found !== true) return false;
    await this.#send("Input.insertText", { text });
    return true;
  }

  /** The DOM text snapshot, at most {@linkcode MAX_SNAPSHOT_BYTES}. */
  async snapshot(): Promise<string> {
    return boundText(String(await this.#eval(SNAPSHOT_JS)), MAX_SNAPSHOT_BYTES, "snapshot");
  }

  /** A PNG of the viewport, downscaled until it fits {@linkcode MAX_IMAGE_BYTES}. */
  async screenshot(): Promise<{ png: Uint8Array; scale: number; width: number; height: number }> {
    const m = await this.#send("Page.getLayoutMetrics") as {
      cssLayoutViewport: { clientWidth: number; clientHeight: number };
    };
    const { clientWidth: width, clientHeight: height } = m.cssLayoutViewport;
    for (const scale of [1, 0.5, 0.25, 0.125]) {
      const clip = { x: 0, y: 0, width, height, scale };
      const r = await this.#send("Page.captureScreenshot", { format: "png", clip });
      const png = Buffer.from(String(r.data), "base64");
      if (png.length <= MAX_IMAGE_BYTES) {
        return { png, scale, width: Math.round(width * scale), height: Math.round(height * scale) };
      }
    }
    throw new Error("The screenshot stays above 4 MiB even downscaled to 1/8.");
  }

  /** The console lines kept so far (and how many older ones were dropped); clears them. */
  consoleLogs(): { lines: string[]; dropped: number } {
    const out = { lines: this.#logs.splice(0), dropped: this.#dropped };
    this.#dropped = 0;
    return out;
  }
}
