/**
 * Line breaks as Python reads them: `\n`, `\r\n` and a lone `\r` each end a line (the language
 * server protocol counts lines the same way). tree-sitter-python ends a line only at `\n` and takes
 * a lone `\r` for white space, so a file saved with classic Mac line endings would parse as one
 * broken line. The engine therefore parses and analyses the text with each lone `\r` read as `\n`:
 * the same length, so every offset holds in both texts, and every row the same line as the
 * protocol's. Fix edits are built from that text and are turned back into the file's line breaks.
 */

const LONE_CARRIAGE_RETURN = /\r(?!\n)/g;

/** `text` with each lone `\r` replaced by `\n`; `text` itself when it has none. */
export function withLineFeeds(text: string): string {
  // `includes` is far cheaper than a regular expression on the common LF-only file.
  if (!text.includes("\r")) return text;
  return text.replace(LONE_CARRIAGE_RETURN, "\n");
}

/** The first line break of `text`, which new lines inserted into it follow; `\n` when it has none. */
export function firstLineBreak(text: string): "\n" | "\r\n" | "\r" {
  const match = /\r\n?|\n/.exec(text);
  return match ? (match[0] as "\n" | "\r\n" | "\r") : "\n";
}

/**
 * Text built from the analysed text, for a file whose lines end with a lone `\r`: each `\n` that is
 * not part of a `\r\n` becomes `\r`. (Fixes already follow a file of `\r\n`s.)
 */
export function withCarriageReturns(text: string): string {
  if (!text.includes("\n")) return text;
  return text.replace(/\r?\n/g, (lineBreak) => (lineBreak === "\n" ? "\r" : lineBreak));
}
