import { SyntaxNode, treeHasErrors } from "../syntax/parser";
import { Rule } from "./rule";
import { capitalize } from "./messageText";
import { StoreCall, writtenMethod } from "../airflow/model";
import { isNumberLiteral, stringLiteral, unparenthesize } from "../syntax/nodes";
import { codeSpan } from "../syntax/markdown";

/** The `key` column of the state store tables (code: `String(512)`). */
const MAX_KEY_LENGTH = 512;

/**
 * ## What it does
 * Checks the key given to a task or asset state store's `get`, `set` and `delete` (first positional
 * argument or `key=`), written in the call or through a name bound once:
 * - a key containing `.` or `/` (in an f-string, in its literal parts) is reported as a **warning**;
 * - a key that is not a string (a number, `True`, `None`, a list, tuple, dict or set) is reported as
 *   an **error**;
 * - a key longer than 512 characters (for an f-string: whose literal parts alone are) is reported as
 *   an **error**.
 *
 * The rule's default severity is the warning's; the other findings carry their own severity. A
 * severity set for AS105 in `airflowStateStore.rules` or with `--rule-severity` applies to all of
 * them alike.
 *
 * ## Why is this bad?
 * Keys are short descriptive strings. Airflow stores them in a 512-character text column: a longer
 * key cannot be written to the metadata database, so `set` fails when the task runs and `get` or
 * `delete` can never find an entry under it. A key that is not a `str` fails when the call reaches
 * the store. Dots and slashes work from a task, but Airflow's guidance asks for keys without them:
 * they read as namespaces or paths, and a `/` becomes part of the REST API's
 * `.../state-store/{key}` URL, where it has to be percent-encoded by every client that reads the entry.
 *
 * ## Example
 * ```python
 * @task
 * def export(task_state_store=None):
 *     task_state_store.set("export.orders/last_page", 12)
 *     task_state_store.set(42, "done")
 * ```
 *
 * ## Use instead
 * ```python
 * @task
 * def export(task_state_store=None):
 *     task_state_store.set("export_orders_last_page", 12)
 *     task_state_store.set("step_42", "done")
 * ```
 *
 * ## Fix safety
 * There is no fix: renaming a key orphans whatever was stored under the old one (an in-flight retry
 * would start over), so the new name is the author's decision.
 */
export const AS105: Rule = {
  code: "AS105",
  name: "key-not-plain-string",
  summary: "State store key that is not a short plain string: a dot or slash (warning), not a `str` or over 512 characters (error)",
  defaultSeverity: "warning",
  category: "values",
  fix: "none",
  mayReport: ({ facts }) => facts.mentionsStore() && facts.mentionsAny(["get", "set", "delete"]),
  scope: "store use",
  check({ model, report, regions }) {
    for (const call of model.storeCallsWithin(regions)) {
      if (call.method === "clear" || !call.key) continue;
      const resolved = model.resolveValue(call.key);
      const nonString = nonStringKind(resolved);
      if (nonString) {
        const name = throughName(call.key, resolved);
        const holds = name ? ` (${codeSpan(name)} holds ${codeSpan(shorten(resolved.text))})` : "";
        report({
          node: call.key,
          severity: "error",
          message: `This key is ${nonString}${holds}, not a \`str\`: the ${codeSpan(writtenMethod(call))} raises \`pydantic.ValidationError\` when the task runs. ${advice(resolved)}`,
        });
        continue;
      }
      const text = keyText(resolved, true);
      if (!text) continue;
      const length = [...text.literal].length;
      if (length > MAX_KEY_LENGTH) {
        report({ node: call.key, severity: "error", message: tooLongMessage(call, subjectOf(call.key, resolved), text, length) });
        continue;
      }
      const characters = [".", "/"].filter((c) => text.literal.includes(c));
      if (characters.length > 0) {
        report({ node: call.key, message: separatorMessage(subjectOf(call.key, resolved), text, characters) });
      }
    }
  },
};

/** "the key `\"a.b\"`", or "`KEY` (the key `\"a.b\"`)" when it is written through a name. */
function subjectOf(written: SyntaxNode, resolved: SyntaxNode): string {
  const literal = resolved.text.includes("\n") ? "the key" : `the key ${codeSpan(shorten(resolved.text))}`;
  const name = throughName(written, resolved);
  return name ? `${codeSpan(name)} (${literal})` : literal;
}

/** The name the key is written through, when it is not written in the call itself. */
function throughName(written: SyntaxNode, resolved: SyntaxNode): string | undefined {
  const name = unparenthesize(written);
  return name.type === "identifier" && name.id !== resolved.id ? name.text : undefined;
}

function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** What a non-string key certainly is ("an `int`"), or undefined when it is a string or unknown. */
function nonStringKind(node: SyntaxNode): string | undefined {
  if (isNumberLiteral(node)) return numberKind(node.text);
  // UTF-8 `bytes` are coerced to `str` by the SDK.
  if (stringLiteral(node)) return undefined;
  switch (node.type) {
    case "true":
    case "false":
      return "a `bool`";
    case "none":
      return "`None`";
    case "list":
    case "list_comprehension":
      return "a `list`";
    case "tuple":
      return "a `tuple`";
    case "dictionary":
    case "dictionary_comprehension":
      return "a `dict`";
    case "set":
    case "set_comprehension":
      return "a `set`";
    default:
      return undefined;
  }
}

/** `-1.5e3` → "a `float`"; the sign and `_` separators do not matter. */
function numberKind(written: string): string {
  const digits = written.replace(/^[-+]\s*/, "");
  if (/^0[xXoObB]/.test(digits)) return "an `int`";
  if (/[jJ]$/.test(digits)) return "a `complex`";
  return /[.eE]/.test(digits) ? "a `float`" : "an `int`";
}

/** How the message suggests writing a non-string key: the number as a string. */
function advice(node: SyntaxNode): string {
  const text = isNumberLiteral(node) && /^\d+$/.test(node.text) ? node.text : undefined;
  return text !== undefined && /^[\w-]{1,40}$/.test(text) ? `Write it as a string: ${codeSpan(`"${text}"`)}.` : "Name the entry with a short descriptive string.";
}

function tooLongMessage(call: StoreCall, subject: string, text: KeyText, length: number): string {
  const size = text.complete ? `${length} characters long` : `at least ${length} characters long`;
  const consequence =
    call.method === "set"
      ? `writing it fails in the metadata database when the task runs`
      : `no entry can be stored under it, so ${codeSpan(writtenMethod(call))} never finds one`;
  return `${capitalize(subject)} is ${size}: ${consequence}. The state store's key column holds at most ${MAX_KEY_LENGTH}; use a short descriptive key, and keep long identifiers in the value.`;
}

function separatorMessage(subject: string, text: KeyText, characters: string[]): string {
  const found = characters.map((c) => codeSpan(c)).join(" and ");
  const why = characters.includes("/")
    ? "read as namespaces or paths, and a `/` must be percent-encoded in the REST API's `.../state-store/{key}` URLs"
    : "read as namespaces or paths";
  const example = text.complete && /^[\w./-]{1,60}$/.test(text.literal) ? `, e.g. ${codeSpan(`"${text.literal.replace(/[./]+/g, "_")}"`)}` : "";
  return `${capitalize(subject)} contains ${found}: it works, but Airflow's guidance asks for keys without dots or slashes. They ${why}; use \`_\` instead${example}.`;
}

interface KeyText {
  /** The run-time text of the key's literal parts, escape sequences decoded. */
  literal: string;
  /** Whether the key is entirely literal (no f-string interpolation). */
  complete: boolean;
}

/** The literal text of a string key (plain or f-string, concatenated or not); undefined for anything else (bytes unless `bytesToo`). */
function keyText(node: SyntaxNode, bytesToo = false): KeyText | undefined {
  const parts = node.type === "concatenated_string" ? node.namedChildren : [node];
  let literal = "";
  let complete = true;
  for (const part of parts) {
    const info = stringLiteral(part);
    if (!info || (info.isBytes && !bytesToo)) return undefined;
    const raw = info.prefix.includes("r");
    const formatted = info.prefix.includes("f");
    // A plain string's text between its quotes is its one `string_content`, whose node need not be read.
    if (!raw && !formatted && !treeHasErrors(part.tree)) {
      literal += decode(info.value, false, false);
      continue;
    }
    for (const child of part.namedChildren) {
      if (child.type === "string_content") literal += decode(child.text, raw, formatted);
      else if (child.type === "interpolation") complete = false;
    }
  }
  return { literal, complete };
}

const ESCAPE = /\\(\r\n|\n|[\\'"abfnrtv]|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\})/g;
const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/**
 * The text a piece of string literal stands for at run time: escape sequences decoded (unknown ones
 * such as `\d` stay as written, as in Python), and `{{`/`}}` halved in f-strings. A named escape
 * (`\N{...}`) counts as one character of unknown text.
 */
function decode(written: string, raw: boolean, formatted: boolean): string {
  // Most keys hold no backslash, and the escapes' pattern need not run on them: it took 6 ms of the
  // profile of the first keystroke after opening the 20,000-line probe DAG.
  let text = raw || !written.includes("\\") ? written : written.replace(ESCAPE, decodedEscape);
  if (formatted) text = text.replace(/\{\{/g, "{").replace(/\}\}/g, "}");
  return text;
}

function decodedEscape(_: string, escape: string): string {
  if (escape === "\n" || escape === "\r\n") return "";
  if (escape in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[escape];
  if (/^[0-7]/.test(escape)) return String.fromCodePoint(parseInt(escape, 8));
  const code = /^[xuU]/.test(escape) ? parseInt(escape.slice(1), 16) : -1;
  // Out-of-range `\U` escapes do not compile in Python; `\N{...}` names are not looked up.
  return code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "\uFFFD";
}
