/**
 * Completion of the `retention=` argument of `task_state_store.set(...)`: `timedelta(days=…)` and
 * `NEVER_EXPIRE`, each with the import it needs added in the file's own style.
 */
import { PythonDocument } from "../syntax/document";
import { ensureImported } from "../fixes/edits";
import { parsePython } from "../syntax/parser";
import { SemanticModel, StoreCall } from "../airflow/model";
import { TextEdit } from "../types";

export interface CompletionSuggestion {
  label: string;
  /** What the editor filters and sorts by. */
  filterText: string;
  sortText: string;
  detail: string;
  documentation: string;
  /** Replaces the text between these UTF-16 offsets (the partly typed word). */
  start: number;
  end: number;
  newText: string;
  /** `newText` holds snippet tab stops (`${1:7}`). */
  snippet: boolean;
  /** The import the suggestion needs; empty when the file already has it. */
  additionalEdits: TextEdit[];
}

/** `retention=` then a partly typed name, at the end of the text before the cursor. */
const AFTER_RETENTION = /\bretention\s*=\s*([\p{L}_][\p{L}\p{N}_]*)?$/u;
const WORD_AHEAD = /^[\p{L}\p{N}_]*/u;

/**
 * The text with the typed word replaced by a placeholder that parses: the argument list is usually
 * closed already (editors add the parenthesis), and when it is not, closing it is the next guess.
 */
const PLACEHOLDERS = ["None", "None)"];

export function completionsAt(document: PythonDocument, offset: number): CompletionSuggestion[] {
  const text = document.analysedText();
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const typed = AFTER_RETENTION.exec(text.slice(lineStart, offset));
  if (!typed) return [];
  const start = offset - (typed[1]?.length ?? 0);
  const end = offset + WORD_AHEAD.exec(text.slice(offset))![0].length;
  for (const placeholder of PLACEHOLDERS) {
    const patched = text.slice(0, start) + placeholder + text.slice(end);
    const model = new SemanticModel(parsePython(patched), patched);
    // The argument must be the placeholder alone: completing inside `retention=timedelta(days=3)` would leave a mangled call.
    const isPlaceholder = (value: { startIndex: number; endIndex: number } | undefined) => value?.startIndex === start && value.endIndex === start + "None".length;
    const call = model.storeCalls.find((c) => c.method === "set" && c.store.kind === "task" && isPlaceholder(c.args.keywords.get("retention")?.value));
    if (call) return suggestions(model, call, { start, end, placeholderLength: placeholder.length });
  }
  return [];
}

interface Replaced {
  start: number;
  end: number;
  placeholderLength: number;
}

function suggestions(model: SemanticModel, call: StoreCall, replaced: Replaced): CompletionSuggestion[] {
  const at = call.args.keywords.get("retention")!.value;
  const timedelta = ensureImported(model, "datetime", "timedelta", at);
  const neverExpire = ensureImported(model, "airflow.sdk", "NEVER_EXPIRE", at);
  const result: CompletionSuggestion[] = [];
  const timedeltaEdits = inOriginalText(timedelta.edits, replaced);
  if (timedeltaEdits) {
    result.push({
      label: "timedelta(days=…)",
      filterText: "timedelta",
      sortText: "0",
      detail: timedelta.edits.length > 0 ? "datetime.timedelta (adds the import)" : "datetime.timedelta",
      documentation: "Keeps the entry for this long after it is written; without `retention=` it expires after `[state_store] default_retention_days` (30 by default).",
      start: replaced.start,
      end: replaced.end,
      newText: `${timedelta.reference}(days=\${1:7})`,
      snippet: true,
      additionalEdits: timedeltaEdits,
    });
  }
  const neverExpireEdits = inOriginalText(neverExpire.edits, replaced);
  if (neverExpireEdits) {
    result.push({
      label: "NEVER_EXPIRE",
      filterText: "NEVER_EXPIRE",
      sortText: "1",
      detail: neverExpire.edits.length > 0 ? "airflow.sdk.NEVER_EXPIRE (adds the import)" : "airflow.sdk.NEVER_EXPIRE",
      documentation: "The entry never expires (`timedelta.max`); it stays until it is deleted or the task instance is cleared.",
      start: replaced.start,
      end: replaced.end,
      newText: neverExpire.reference,
      snippet: false,
      additionalEdits: neverExpireEdits,
    });
  }
  return result;
}

/**
 * Edits computed on the text with the placeholder, moved back onto the document's text; undefined
 * when one would touch the placeholder itself (it cannot, since imports go on lines of their own).
 */
function inOriginalText(edits: readonly TextEdit[], replaced: Replaced): TextEdit[] | undefined {
  const placeholderEnd = replaced.start + replaced.placeholderLength;
  const shift = replaced.end - replaced.start - replaced.placeholderLength;
  const moved: TextEdit[] = [];
  for (const edit of edits) {
    if (edit.end <= replaced.start) moved.push(edit);
    else if (edit.start >= placeholderEnd) moved.push({ ...edit, start: edit.start + shift, end: edit.end + shift });
    else return undefined;
  }
  return moved;
}
