import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS104: Rule = {
  code: "AS104",
  name: "todo-AS104",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
