/**
 * A hostile DAG in the review: string literals, asset URIs and task ids holding backticks, Markdown
 * links to `command:` URIs and raw HTML. The review is rendered as VS Code's Markdown preview renders
 * (markdown-it with HTML and link detection on): no link and no HTML element from the DAG may come
 * through, and the DAG's text is still shown.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { PythonDocument, reviewMarkdown } from "../../server/src/engine";
import { inlineMarkdown } from "../../server/src/engine/features/review";
import { codeSpan } from "../../server/src/engine/syntax/markdown";

// markdown-it is the renderer of VS Code's Markdown preview (installed with @vscode/vsce).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const markdownIt: (options: object) => { render(markdown: string): string; renderInline(markdown: string): string } = require("markdown-it");
const renderer = markdownIt({ html: true, linkify: true });

const HOSTILE_DAG = `from datetime import datetime
from airflow.sdk import Asset, task
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.sensors.python import PythonSensor


@task(retries=3)
def load(task_state_store=None, asset_state_store=None):
    task_state_store.set("a\`](command:workbench.action.terminal.new)<img src=x onerror=alert(1)>\`.b", None)
    task_state_store.set(f"{'\`'}[click](command:evil)\`<script>alert(1)</script>/", datetime.now())
    asset_state_store[Asset("\`\`[x](command:evil2)<b>bold</b>\`")].set("k", 1)


submit = DatabricksSubmitRunOperator(task_id="s\`[a](command:evil3)<i>x</i>\`", json={}, wait_for_termination=False)
wait = PythonSensor(task_id="w\`<img src=y>\`[b](command:evil4)&amp;", python_callable=print, op_args=[submit.output])
submit >> wait
`;

/** The elements of the rendered HTML, by name. */
function elements(html: string): Set<string> {
  return new Set([...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1].toLowerCase()));
}

/** The text of each inline code element (a code block's `<code>` has a class), decoded. */
function inlineCode(html: string): string[] {
  return [...html.matchAll(/<code>([^<]*)<\/code>/g)].map((m) => decodeHtml(m[1]));
}

function decodeHtml(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

const REVIEW_ELEMENTS = new Set(["h1", "h2", "h3", "p", "strong", "code", "pre", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "em"]);

describe("review of a hostile DAG", () => {
  const markdown = reviewMarkdown(new PythonDocument("file:///dags/hostile`[t](command:evil5)<b>.py", HOSTILE_DAG), { path: "/dags/hostile.py" });
  const html = renderer.render(markdown);

  test("reports the findings that carry the DAG's text", () => {
    for (const code of ["AS101", "AS102", "AS105", "AS202"]) assert.match(markdown, new RegExp(`### \\d+\\. ${code} `));
  });

  test("renders no link and no HTML element from the DAG", () => {
    assert.doesNotMatch(html, /<a[\s>]/);
    assert.doesNotMatch(html, /href=/);
    assert.deepEqual([...elements(html)].filter((name) => !REVIEW_ELEMENTS.has(name)), []);
  });

  test("still shows the DAG's text", () => {
    assert.ok(html.includes("command:workbench.action.terminal.new"));
    assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;"));
    assert.ok(html.includes("&lt;script&gt;"));
  });

  test("shows the DAG's code in the prose with its backticks, each piece in one code span", () => {
    const spans = inlineCode(html);
    for (const text of [
      'task_state_store.delete("a`](command:workbench.action.terminal.new)<img src=x onerror=alert(1)>`.b")',
      'Asset("``[x](command:evil2)<b>bold</b>`")',
      "f\"{'`'}[click](command:evil)`<script>...",
    ]) assert.ok(spans.includes(text), `${text} not among ${JSON.stringify(spans)}`);
  });
});

describe("DAG text in Markdown", () => {
  const texts = ["plain", "a`b", "``", "`x`", " lead", "trail`", "[l](command:x)", "<b>x</b>", "a\nb", "`` `a` ``", "\\`[x](command:y)"];

  test("a code span shows its text exactly, whatever backticks it holds", () => {
    for (const text of texts) {
      const rendered = renderer.renderInline(codeSpan(text));
      const shown = decodeHtml(rendered.replace(/^<code>|<\/code>$/g, ""));
      assert.equal(shown, text.replace(/\n/g, " "), `${JSON.stringify(text)} → ${rendered}`);
    }
  });

  test("prose around code spans is text: no link, emphasis by the DAG's brackets or HTML", () => {
    for (const text of texts) {
      const rendered = renderer.renderInline(inlineMarkdown(`Store \`${text}\` then [see](command:z) <i>x</i> & more`));
      assert.doesNotMatch(rendered, /<a[\s>]|<i>|<b>/, rendered);
    }
  });
});
