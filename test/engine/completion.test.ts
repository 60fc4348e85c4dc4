import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { applyEdits, completionsAt, CompletionSuggestion, lint, PythonDocument } from "../../server/src/engine";

/** `source` with `|` marking the cursor. */
function complete(source: string): { text: string; offset: number; suggestions: CompletionSuggestion[] } {
  const offset = source.indexOf("|");
  assert.ok(offset >= 0, "no cursor");
  const text = source.slice(0, offset) + source.slice(offset + 1);
  return { text, offset, suggestions: completionsAt(new PythonDocument("file:///dag.py", text), offset) };
}

/** The text after accepting `suggestion`, with tab stops replaced by their defaults. */
function accept(text: string, suggestion: CompletionSuggestion): string {
  const newText = suggestion.newText.replace(/\$\{\d+:([^}]*)\}/g, "$1");
  return applyEdits(text, [{ start: suggestion.start, end: suggestion.end, newText }, ...suggestion.additionalEdits]);
}

const TASK = `from airflow.sdk import task


@task
def remember(task_state_store=None):
    task_state_store.set("cursor", 1, retention=|)
`;

describe("completion after retention=", () => {
  test("offers timedelta(days=…) as a snippet and NEVER_EXPIRE, each adding its import", () => {
    const { text, suggestions } = complete(TASK);
    assert.deepEqual(
      suggestions.map((s) => s.label),
      ["timedelta(days=…)", "NEVER_EXPIRE"],
    );
    const [timedelta, neverExpire] = suggestions;
    assert.equal(timedelta.snippet, true);
    assert.equal(timedelta.newText, "timedelta(days=${1:7})");
    assert.equal(
      accept(text, timedelta),
      `from airflow.sdk import task
from datetime import timedelta


@task
def remember(task_state_store=None):
    task_state_store.set("cursor", 1, retention=timedelta(days=7))
`,
    );
    assert.equal(neverExpire.snippet, false);
    const withNeverExpire = accept(text, neverExpire);
    assert.equal(
      withNeverExpire,
      `from airflow.sdk import task, NEVER_EXPIRE


@task
def remember(task_state_store=None):
    task_state_store.set("cursor", 1, retention=NEVER_EXPIRE)
`,
    );
    for (const accepted of [accept(text, timedelta), withNeverExpire]) {
      assert.deepEqual(lint(new PythonDocument("file:///dag.py", accepted)), [], `no finding after accepting:\n${accepted}`);
    }
  });

  test("existing imports are reused, in the file's own style", () => {
    const { suggestions } = complete(TASK.replace("from airflow.sdk import task", "import datetime as dt\nfrom airflow import sdk\nfrom airflow.sdk import task"));
    assert.equal(suggestions[0].newText, "dt.timedelta(days=${1:7})");
    assert.deepEqual(suggestions[0].additionalEdits, []);
    assert.equal(suggestions[1].newText, "sdk.NEVER_EXPIRE");
    assert.deepEqual(suggestions[1].additionalEdits, []);
  });

  test("a partly typed word is replaced, and the text after the cursor is kept", () => {
    const { text, suggestions } = complete(TASK.replace("retention=|)", "retention = NEV|ER)  # keep"));
    const never = suggestions.find((s) => s.label === "NEVER_EXPIRE");
    assert.ok(never);
    assert.ok(accept(text, never).includes("retention = NEVER_EXPIRE)  # keep"));
  });

  test("without the closing parenthesis yet", () => {
    const { suggestions } = complete(TASK.replace("retention=|)", "retention=|\n    other = 1"));
    assert.equal(suggestions.length, 2);
  });

  test("a context store and a keyword-only call on several lines", () => {
    const source = `from airflow.sdk import task


@task
def remember(**context):
    context["task_state_store"].set(
        "cursor",
        1,
        retention=|,
    )
`;
    assert.equal(complete(source).suggestions.length, 2);
  });

  test("nothing where retention is not a task store set's argument", () => {
    const asset = `from airflow.sdk import Asset, task

ORDERS = Asset(name="orders", uri="s3://o")


@task(outlets=[ORDERS])
def load(asset_state_store=None):
    asset_state_store[ORDERS].set("k", 1, retention=|)
`;
    assert.deepEqual(complete(asset).suggestions, [], "the asset store has no retention");
    const asyncAsset = asset.replace("def load", "async def load").replace('asset_state_store[ORDERS].set("k"', 'await asset_state_store[ORDERS].aset("k"');
    assert.deepEqual(complete(asyncAsset).suggestions, [], "nor its async aset");
    assert.deepEqual(complete("from airflow.sdk import task\ncache.set('k', 1, retention=|)\n").suggestions, [], "not a store");
    assert.deepEqual(complete(TASK.replace("retention=|)", "|retention=)")).suggestions, [], "before the keyword");
    assert.deepEqual(complete(TASK.replace("retention=|)", "timeout=|)")).suggestions, [], "another keyword");
    assert.deepEqual(complete("from airflow.sdk import task\nretention=|\n").suggestions, [], "an assignment");
    assert.deepEqual(complete(TASK.replace("retention=|)", "retention=|timedelta(days=3))")).suggestions, [], "inside an existing value");
  });
});
