/** Turns a whole new text into one edit of the lines that differ, so applying it keeps the cursor and folding elsewhere. */
import type { PythonDocument } from "../engine";
import type { PlacedEdit } from "./workerProtocol";

/** The smallest replacement of whole lines of `document` that yields `newText`; undefined when nothing differs. */
export function changedLinesEdit(document: PythonDocument, newText: string): PlacedEdit | undefined {
  const oldText = document.getText();
  if (oldText === newText) return undefined;
  const shorter = Math.min(oldText.length, newText.length);
  let prefix = 0;
  while (prefix < shorter && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)) suffix++;
  // Widen to whole lines: both texts share the widened prefix and suffix, and line boundaries never
  // split a surrogate pair or a CRLF.
  const start = prefix === 0 ? 0 : oldText.lastIndexOf("\n", prefix - 1) + 1;
  const changedEnd = oldText.length - suffix;
  const nextNewline = oldText.indexOf("\n", changedEnd);
  const end = changedEnd === start || oldText[changedEnd - 1] === "\n" ? changedEnd : nextNewline === -1 ? oldText.length : nextNewline + 1;
  return {
    range: { start: document.positionAt(start), end: document.positionAt(end) },
    newText: newText.slice(start, newText.length - (oldText.length - end)),
  };
}
