/**
 * What must hold for any input, however broken: no rule throws, a second lint gives the same
 * findings, and in an input that parses, every fix and alternative rewrite, applied alone, leaves a
 * file that parses and reports fewer findings of its rule. (In a file with a syntax error a fix can
 * land in the part tree-sitter could not read, and nothing is promised of it.)
 */
import { applyEdits, Diagnostic, lint, LintOptionsWithEdits, PythonDocument } from "../../server/src/engine";

/** The broken properties, as sentences; empty when every one holds. */
export function brokenProperties(text: string, options: LintOptionsWithEdits = {}): string[] {
  const problems: string[] = [];
  const run = (source: string) =>
    lint(new PythonDocument("file:///fuzz.py", source), { ...options, onRuleError: (rule, error) => problems.push(`${rule.code} threw: ${error instanceof Error ? error.stack ?? error.message : String(error)}`) });
  const first = run(text);
  const second = run(text);
  if (JSON.stringify(summary(first)) !== JSON.stringify(summary(second))) problems.push("two lints of the same text gave different findings");
  if (!parses(text)) return problems;
  for (const diagnostic of first) {
    for (const fix of [diagnostic.fix, ...(diagnostic.alternatives ?? [])]) {
      if (!fix) continue;
      const fixed = applyEdits(text, fix.edits);
      if (!parses(fixed)) problems.push(`${diagnostic.code} "${fix.title}" leaves a syntax error`);
      const before = first.filter((d) => d.code === diagnostic.code).length;
      const after = run(fixed).filter((d) => d.code === diagnostic.code).length;
      if (after >= before) problems.push(`${diagnostic.code} "${fix.title}" at line ${diagnostic.range.start.line + 1} does not remove its finding`);
    }
  }
  return problems;
}

function summary(diagnostics: Diagnostic[]): unknown[] {
  return diagnostics.map((d) => [d.code, d.startOffset, d.endOffset, d.message, d.fix?.edits, d.alternatives?.map((a) => a.edits)]);
}

function parses(text: string): boolean {
  return !new PythonDocument("file:///fuzz.py", text).tree.rootNode.hasError;
}
