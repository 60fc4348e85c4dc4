import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS103: Rule = {
  code: "AS103",
  name: "todo-AS103",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
