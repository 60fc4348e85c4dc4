/**
 * Cheap tests on a file's text that rules declare as `mayReport`: each holds wherever its rule can
 * report, so a file that fails every enabled rule's test is not analysed at all. They must stay
 * sound (never false where the rule could report), which test/rules/gates.test.ts checks on every
 * fixture; a test that is true too often only costs time.
 */

import type { FileInputs } from "../context";

export type StoreName = "task_state_store" | "asset_state_store";

const BOTH_STORES: readonly StoreName[] = ["task_state_store", "asset_state_store"];

/** What the text tests read: the file's inputs, and facts about its text that several tests ask for. */
export interface GateInputs extends FileInputs {
  readonly facts: TextFacts;
}

export function gateInputs(file: FileInputs): GateInputs {
  return { ...file, facts: new TextFacts(file.text) };
}

/**
 * Facts about one file's text, each found once however many rules' tests ask: a dozen rules ask
 * whether the text names a store, and in a file that does not, each answer is a scan of the whole
 * text for a concatenated key.
 */
export class TextFacts {
  private readonly stores = new Map<StoreName, boolean>();

  constructor(private readonly text: string) {}

  /** `mentionsStore` of the text. */
  mentionsStore(stores: readonly StoreName[] = BOTH_STORES): boolean {
    return stores.some((store) => {
      let mentioned = this.stores.get(store);
      if (mentioned === undefined) this.stores.set(store, (mentioned = mentionsStore(this.text, [store])));
      return mentioned;
    });
  }
}

/** Whether the text holds at least one of `words`. */
export function mentionsAny(text: string, words: readonly string[]): boolean {
  return words.some((word) => text.includes(word));
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
