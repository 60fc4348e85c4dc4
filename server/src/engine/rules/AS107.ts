import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS107: Rule = {
  code: "AS107",
  name: "todo-AS107",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
