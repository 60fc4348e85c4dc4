/** Small pieces of wording shared by the rules' messages. */

/** The text with its first letter upper-case, to start a sentence with a phrase built for mid-sentence use. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
