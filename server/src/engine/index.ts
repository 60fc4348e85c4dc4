/** The engine's public surface: front ends import from here only. */
export { PythonDocument, ContentChange } from "./syntax/document";
export { lint, fixAll, fixesOf, enabledRules, FindingFixes, LintOptions, LintOptionsWithEdits, FixAllResult } from "./linter";
export { IncrementalLinter, LintMode } from "./incremental";
export { applyEdits } from "./fixes/edits";
export { allRules, ruleByCode } from "./rules";
export { FixAvailability, Rule, RuleCategory, RuleInputs } from "./rules/rule";
export { AnalysisContext, ExternalClass, FileInputs, WorkspaceClasses } from "./context";
export * from "./types";
export { committedText } from "./project/git";
export { WorkspaceIndex, WorkspaceIndexOptions, Consulted, MAX_INDEXED_CHARACTERS } from "./workspace/workspaceIndex";
export { isSkippedFolder } from "./workspace/folders";
export { hoverAt, HoverInfo } from "./features/hover";
export { completionsAt, CompletionSuggestion } from "./features/completion";
export { reviewMarkdown, ReviewOptions } from "./features/review";
export { alsoAtLines } from "./features/relatedLines";
export { FILE_NOQA_PREFIX, parseFileNoqa, parseNoqa, NoqaComment } from "./syntax/noqa";
