/**
 * `setup.py`: the `install_requires` and `extras_require` arguments of `setup(...)`, read from the
 * syntax tree without running anything. Lists, tuples, names bound once to them, `+` of those, and
 * for `extras_require` a dictionary of them.
 */
import { parsePython, SyntaxNode } from "../syntax/parser";
import { PythonModel } from "../python/model";
import { plainString } from "../syntax/nodes";
import { AirflowMention, specifierMention } from "./pin";
import { isAirflowDistribution, parseRequirement } from "./requirement";

const SETUP = /^(?:(?:setuptools|distutils\.core)\.)?setup$/;

export function setupPyMentions(text: string, file: string): AirflowMention[] {
  if (!/apache[-_.]airflow/i.test(text)) return [];
  const model = new PythonModel(parsePython(text), text);
  const mentions: AirflowMention[] = [];
  for (const call of model.calls) {
    if (!call.callee || !SETUP.test(call.callee)) continue;
    const strings: SyntaxNode[] = [];
    const install = call.args.keywords.get("install_requires")?.value;
    if (install) collectStrings(model, install, strings, 0);
    const extras = call.args.keywords.get("extras_require")?.value;
    const extrasDictionary = extras ? model.resolveValue(extras) : undefined;
    if (extrasDictionary?.type === "dictionary") {
      for (const pair of extrasDictionary.namedChildren) {
        const value = pair.type === "pair" ? pair.childForFieldName("value") : null;
        if (value) collectStrings(model, value, strings, 0);
      }
    }
    for (const node of strings) {
      const requirement = parseRequirement(plainString(node)!);
      if (requirement && isAirflowDistribution(requirement.name)) {
        mentions.push(specifierMention(requirement.specifier, { path: file, line: node.startPosition.row + 1 }));
      }
    }
  }
  return mentions;
}

/** The string literals of a requirements list expression. */
function collectStrings(model: PythonModel, expression: SyntaxNode, into: SyntaxNode[], depth: number): void {
  if (depth > 8) return;
  const node = model.resolveValue(expression);
  if (node.type === "list" || node.type === "tuple" || node.type === "set") {
    for (const item of node.namedChildren) if (plainString(item) !== undefined) into.push(item);
  } else if (node.type === "binary_operator" && node.childForFieldName("operator")?.type === "+") {
    for (const side of ["left", "right"]) {
      const operand = node.childForFieldName(side);
      if (operand) collectStrings(model, operand, into, depth + 1);
    }
  }
}
