/**
 * Cheap tests on a file's text that rules declare as `mayReport`: each holds wherever its rule can
 * report, so a file that fails every enabled rule's test is not analysed at all. They must stay
 * sound (never false where the rule could report), which test/rules/gates.test.ts checks on every
 * fixture; a test that is true too often only costs time.
 */

import type { FileInputs } from "../context";
import type { TextChange } from "../types";

export type StoreName = "task_state_store" | "asset_state_store";

const BOTH_STORES: readonly StoreName[] = ["task_state_store", "asset_state_store"];

/** What the text tests read: the file's inputs, and facts about its text that several tests ask for. */
export interface GateInputs extends FileInputs {
  readonly facts: TextFacts;
}

/** `facts`: the text's facts, when the caller has them (`TextFacts.afterEdit`). */
export function gateInputs(file: FileInputs, facts: TextFacts = new TextFacts(file.text)): GateInputs {
  return { ...file, facts };
}

/**
 * Facts about one file's text, each found once however many rules' tests ask: a dozen rules ask
 * whether the text names a store, and in a file that does not, each answer is a scan of the whole
 * text for a concatenated key. The facts of an edited text are worked out from the last text's
 * where the edit cannot have changed them (`afterEdit`): a word's first occurrence that lies
 * outside the edit stands, and a word absent before is looked for only around the edit. On every
 * keystroke of a 20,000-line DAG, the rules' tests were otherwise a dozen scans of its 700 KB.
 */
export class TextFacts {
  /** Where each word asked about first occurs (-1: nowhere). */
  private readonly firstOccurrences = new Map<string, number>();
  private readonly stores = new Map<StoreName, boolean>();
  private readonly concatenatedKeys = new Map<StoreName, boolean>();

  constructor(
    private readonly text: string,
    private before?: { facts: TextFacts; change: TextChange },
  ) {}

  /** The facts of `text`, which is `previous`'s text edited at `change`. */
  static afterEdit(text: string, previous: TextFacts, change: TextChange): TextFacts {
    return new TextFacts(text, { facts: previous, change });
  }

  /**
   * Lets the last text's facts go: what is asked from now on is found in this text alone. A front end
   * that keeps these facts for the next edit's calls this, so that no chain of older texts is kept.
   */
  settle(): void {
    this.before = undefined;
  }

  /** Whether the text holds `word`. */
  includes(word: string): boolean {
    return this.firstOccurrence(word) >= 0;
  }

  /** Whether the text holds at least one of `words`. */
  mentionsAny(words: readonly string[]): boolean {
    return words.some((word) => this.includes(word));
  }

  /** `mentionsStore` of the text. */
  mentionsStore(stores: readonly StoreName[] = BOTH_STORES): boolean {
    return stores.some((store) => {
      let mentioned = this.stores.get(store);
      if (mentioned === undefined) this.stores.set(store, (mentioned = this.includes(store) || this.holdsConcatenatedKey(store)));
      return mentioned;
    });
  }

  private firstOccurrence(word: string): number {
    let first = this.firstOccurrences.get(word);
    if (first === undefined) {
      first = this.firstOccurrenceFromBefore(word) ?? this.text.indexOf(word);
      this.firstOccurrences.set(word, first);
    }
    return first;
  }

  /** Where `word` first occurs, from where it did before the edit; undefined when the edit may have removed that occurrence. */
  private firstOccurrenceFromBefore(word: string): number | undefined {
    if (!this.before || word.length === 0) return undefined;
    const { facts, change } = this.before;
    const before = facts.firstOccurrence(word);
    // Before the edit, unchanged.
    if (before >= 0 && before + word.length <= change.start) return before;
    if (before >= 0 && before < change.oldEnd) return undefined;
    // Nowhere before, or after the edit: an occurrence the edit made overlaps what it wrote, and comes first.
    const around = this.text.slice(Math.max(0, change.start - word.length + 1), change.newEnd + word.length - 1).indexOf(word);
    if (around >= 0) return Math.max(0, change.start - word.length + 1) + around;
    return before >= 0 ? before + change.newEnd - change.oldEnd : -1;
  }

  /** A store's key spelled as implicitly concatenated strings; the edit's neighbourhood is searched when the last text had none. */
  private holdsConcatenatedKey(store: StoreName): boolean {
    let holds = this.concatenatedKeys.get(store);
    if (holds === undefined) {
      const before = this.before;
      const pattern = CONCATENATED_KEY[store];
      const reach = concatenatedKeyLength(store);
      // A match the edit made overlaps what it wrote; the pattern has no anchors or look-arounds, so it matches in a slice where it matches in the whole text.
      if (before && !before.facts.holdsConcatenatedKey(store)) holds = pattern.test(this.text.slice(Math.max(0, before.change.start - reach + 1), before.change.newEnd + reach - 1));
      else holds = pattern.test(this.text);
      this.concatenatedKeys.set(store, holds);
    }
    return holds;
  }
}

/**
 * Whether the text can name one of the stores: the name itself (a context key or a parameter), or a
 * context key spelled as implicitly concatenated strings (`"task_st" "ate_store"`), which Python
 * joins and the model reads as one key: a piece that is a proper prefix of the name, followed by
 * what can come between two pieces (white space, a comment, a line continuation) or by the next
 * piece's prefix or quote.
 */
export function mentionsStore(text: string, stores: readonly StoreName[] = BOTH_STORES): boolean {
  return stores.some((store) => text.includes(store) || CONCATENATED_KEY[store].test(text));
}

function concatenatedKey(name: string): RegExp {
  const prefixes = Array.from({ length: name.length - 1 }, (_, i) => name.slice(0, i + 1));
  // One character after the piece, not the whole stretch up to the next piece: a pattern for white
  // space, comments and continuations in a row can split a run of `#` or spaces in exponentially
  // many ways when no piece follows.
  return new RegExp(`["'](?:${prefixes.join("|")})["'][\\s#\\\\rRuUfFbBtT"']`);
}

const CONCATENATED_KEY: Readonly<Record<StoreName, RegExp>> = {
  task_state_store: concatenatedKey("task_state_store"),
  asset_state_store: concatenatedKey("asset_state_store"),
};

/** The longest match of `CONCATENATED_KEY`: a quote, the longest proper prefix, a quote, one character. */
function concatenatedKeyLength(store: StoreName): number {
  return 1 + (store.length - 1) + 1 + 1;
}
