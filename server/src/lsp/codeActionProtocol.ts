/** What the server's diagnostics and code actions and the client's commands agree on. */

/** The `source` of the server's diagnostics: the client knows its findings by it. */
export const DIAGNOSTIC_SOURCE = "airflow-state-store";

/** The kind of the fix-all source action (on save, the Source Action menu, the palette command). */
export const FIX_ALL_KIND = "source.fixAll.airflowStateStore";

/** A client command: opens a rule's page, rendered and read-only. Its one argument is the rule code. */
export const SHOW_RULE_DOCUMENTATION_COMMAND = "airflowStateStore.showRuleDocumentation";

/** Where every action's title says it comes from, as ruff's say "Ruff (F401): …". */
export const ACTION_SOURCE = "Airflow State Store";
