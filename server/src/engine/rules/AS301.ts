import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS301: Rule = {
  code: "AS301",
  name: "todo-AS301",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
