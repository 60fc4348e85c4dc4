/**
 * `--format review`: each file's Markdown review (engine/features/review.ts), titled with its path as the
 * other formats show it, in path order, separated by a horizontal rule.
 */
import { RunReport } from "./findings";

export const REVIEW_SEPARATOR = "\n---\n\n";

export function formatReview(report: RunReport): string {
  if (report.reviews.length === 0) return "No Python files to review.\n";
  return report.reviews.map((review) => review.markdown).join(REVIEW_SEPARATOR);
}
