/** How the text front ends (the CLI's text format, the review) name a finding's other places. */
import { Diagnostic } from "../types";

/** `also at line 7`, `also at lines 8, 9 and 10` for 1-based line numbers, each once; "" for none. */
export function alsoAtLines(lines: readonly number[]): string {
  const unique = [...new Set(lines)];
  if (unique.length === 0) return "";
  if (unique.length === 1) return `also at line ${unique[0]}`;
  return `also at lines ${unique.slice(0, -1).join(", ")} and ${unique[unique.length - 1]}`;
}

/** The 1-based lines of a diagnostic's related locations. */
export function relatedLines(diagnostic: Pick<Diagnostic, "related">): number[] {
  return (diagnostic.related?.ranges ?? []).map((range) => range.start.line + 1);
}
