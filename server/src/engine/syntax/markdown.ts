/**
 * DAG text inside Markdown. Messages, fix titles and the review quote the DAG's code in code spans;
 * a span fenced with one backtick ends at the first backtick of the quoted text, which then vanishes
 * and pairs the spans after it wrongly. CommonMark lets a span be fenced with any run of backticks.
 */

/** A code span holding `text` exactly: fenced with a backtick run longer than any inside it. */
export function codeSpan(text: string): string {
  // A code span is inline: it cannot hold a line break, so the text is shown on one line.
  const flat = text.replace(/[\r\n]+/g, " ");
  const fence = "`".repeat(longestBacktickRun(flat) + 1);
  // A space on each side keeps a backtick at either end from joining the fence (CommonMark strips one).
  const padded = flat.startsWith("`") || flat.endsWith("`") || /^ .* $/.test(flat) ? ` ${flat} ` : flat;
  return `${fence}${padded}${fence}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}
