import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS101: Rule = {
  code: "AS101",
  name: "todo-AS101",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
