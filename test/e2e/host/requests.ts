/**
 * The harness's side of the file protocol: carries out the suite's requests in the browser that
 * shows the workbench (and on the emulator), one at a time in the order they were made.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Frame, Page } from "playwright-core";
import type { EmulatorHandle } from "../../emulator";
import { answerFile, HarnessAnswer, HarnessRequest, RenderedElement, requestFile } from "../protocol";
import { delay } from "./codeServer";
import { ARTIFACTS, log } from "./prepare";

const WAIT_MS = 15_000;
const QUICK_INPUT = ".quick-input-widget";
const DIALOG = ".monaco-dialog-box";

/** Answers every request in `folder` that has no answer yet. */
export async function answerPendingRequests(page: Page, folder: string, emulator: EmulatorHandle | undefined): Promise<void> {
  const pending = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".request.json"))
    .map((name) => name.slice(0, -".request.json".length))
    .filter((id) => !fs.existsSync(path.join(folder, answerFile(id))))
    .sort();
  for (const id of pending) {
    const request = JSON.parse(fs.readFileSync(path.join(folder, requestFile(id)), "utf8")) as HarnessRequest;
    let answer: HarnessAnswer;
    try {
      answer = { ok: true, ...(await carryOut(page, request, emulator)) };
    } catch (error) {
      answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    const answerPath = path.join(folder, answerFile(id));
    fs.writeFileSync(`${answerPath}.tmp`, JSON.stringify(answer));
    fs.renameSync(`${answerPath}.tmp`, answerPath);
  }
}

async function carryOut(page: Page, request: HarnessRequest, emulator: EmulatorHandle | undefined): Promise<Omit<HarnessAnswer, "ok">> {
  switch (request.action) {
    case "screenshot": {
      const file = path.join(ARTIFACTS, `${request.name}.png`);
      await page.screenshot({ path: file });
      log(`screenshot ${path.relative(process.cwd(), file)}`);
      return {};
    }
    case "input": {
      const widget = page.locator(QUICK_INPUT);
      await waitUntil(async () => (await widget.isVisible()) && (await widget.innerText()).includes(request.expect), `a prompt showing "${request.expect}"`, async () =>
        (await widget.isVisible()) ? await widget.innerText() : "(no prompt open)",
      );
      const input = widget.locator("input").first();
      const text = await widget.innerText();
      const value = await input.inputValue();
      if (request.text !== undefined) await input.fill(request.text);
      await input.press("Enter");
      return { text, value };
    }
    case "dialog": {
      const dialog = page.locator(DIALOG);
      await dialog.waitFor({ state: "visible", timeout: WAIT_MS });
      const text = await dialog.innerText();
      await dialog.locator(".monaco-button", { hasText: request.button }).first().click();
      return { text };
    }
    case "click": {
      // A context view (the lightbulb's menu) blocks the page's pointer until the mouse moves, as a user's does.
      await page.mouse.move(1, 1);
      await page.mouse.move(2, 2);
      await page.locator(request.selector, { hasText: request.hasText }).first().click({ timeout: WAIT_MS });
      return {};
    }
    case "text": {
      const element = page.locator(request.selector).first();
      // Editors (the Output view) render spaces as no-break spaces.
      const read = async () => ((await element.count()) > 0 ? (await element.innerText()).replace(/\u00a0/g, " ") : "");
      const wanted = (text: string) => (request.contains === undefined || text.includes(request.contains)) && (request.lacks === undefined || !text.includes(request.lacks));
      await waitUntil(async () => wanted(await read()), `${request.selector} to ${[request.contains && `show "${request.contains}"`, request.lacks && `no longer show "${request.lacks}"`].filter(Boolean).join(" and ")}`, read);
      return { text: await read() };
    }
    case "webview": {
      let seen: Rendered[] = [];
      const showing = async () => {
        seen = await renderedIn(page.frames(), request.root);
        return seen.find((rendered) => rendered.text.includes(request.contains));
      };
      await waitUntil(async () => (await showing()) !== undefined, `a webview's ${request.root} to show "${request.contains}"`, async () => seen.map((rendered) => rendered.text).join("\n---\n") || `(no frame has ${request.root})`);
      const { text, elements } = (await showing())!;
      return { text, elements };
    }
    case "fault": {
      if (!emulator) throw new Error("no emulator is running");
      emulator.setFault({ type: "status", status: request.status, detail: request.detail }, { method: request.method, path: request.path, times: request.times });
      return {};
    }
  }
}

interface Rendered {
  text: string;
  elements: RenderedElement[];
}

/** The few DOM members read in the browser (this project compiles without the DOM library). */
interface DomElement {
  localName: string;
  innerText: string;
  attributes: ArrayLike<{ name: string; value: string }>;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

/** The first element matching `root` in each frame that has one, with every element inside it. */
async function renderedIn(frames: Frame[], root: string): Promise<Rendered[]> {
  const found: Rendered[] = [];
  for (const frame of frames) {
    const matching = frame.locator(root);
    // A webview's frames are replaced as it loads: a frame gone meanwhile has nothing to read.
    if ((await matching.count().catch(() => 0)) === 0) continue;
    const rendered = await matching
      .first()
      .evaluate((inside: DomElement) => ({
        text: inside.innerText,
        elements: Array.from(inside.querySelectorAll("*"), (inner) => ({ tag: inner.localName, attributes: Object.fromEntries(Array.from(inner.attributes, (attribute) => [attribute.name, attribute.value])) })),
      }), undefined, { timeout: 1000 })
      .catch(() => undefined);
    if (rendered) found.push(rendered);
  }
  return found;
}

/** Polls `condition` until it holds; the error names what was awaited and what was seen instead. */
async function waitUntil(condition: () => Promise<boolean>, what: string, seen: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 1000} s for ${what}; saw: ${(await seen()).slice(0, 2000)}`);
    await delay(100);
  }
}
