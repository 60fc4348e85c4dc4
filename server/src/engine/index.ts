/** The engine's public surface: front ends import from here only. */
export { PythonDocument, ContentChange } from "./document";
export { lint, fixAll, enabledRules, LintOptions, FixAllResult } from "./linter";
export { applyEdits } from "./fixes";
export { allRules, ruleByCode } from "./rules";
export { FixAvailability, Rule, RuleCategory, RuleInputs } from "./rule";
export { AnalysisContext, ExternalClass, FileInputs, WorkspaceClasses } from "./context";
export * from "./types";
export { committedText } from "./git";
export { WorkspaceIndex, WorkspaceIndexOptions, Consulted, MAX_INDEXED_CHARACTERS } from "./workspace/workspaceIndex";
export { isSkippedFolder } from "./workspace/folders";
export { hoverAt, HoverInfo } from "./hover";
export { completionsAt, CompletionSuggestion } from "./completion";
export { reviewMarkdown, ReviewOptions } from "./review";
export { parseNoqa, NoqaComment } from "./noqa";
