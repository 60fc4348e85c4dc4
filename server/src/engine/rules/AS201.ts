import { Rule } from "../rule";

// Placeholder while the rule is being written: registered so the registry compiles; reports nothing.
export const AS201: Rule = {
  code: "AS201",
  name: "todo-AS201",
  summary: "todo",
  defaultSeverity: "warning",
  check() {},
};
