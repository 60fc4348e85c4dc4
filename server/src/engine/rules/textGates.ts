/**
 * Cheap tests on a file's text that rules declare as `mayReport`: each holds wherever its rule can
 * report, so a file that fails every enabled rule's test is not analysed at all. They must stay
 * sound (never false where the rule could report), which test/rules/gates.test.ts checks on every
 * fixture; a test that is true too often only costs time.
 */

export type StoreName = "task_state_store" | "asset_state_store";

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
export function mentionsStore(text: string, stores: readonly StoreName[] = ["task_state_store", "asset_state_store"]): boolean {
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
