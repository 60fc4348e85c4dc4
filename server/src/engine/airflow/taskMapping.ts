/**
 * Dynamic task mapping: which task functions of a file run once per map index, and with which
 * parameters varying. A TaskFlow task is mapped by `fn.expand(...)`, `fn.expand_kwargs(...)` or
 * `fn.partial(...).expand(...)` (also through `fn.override(...)`); a `python_callable` by
 * `PythonOperator.partial(..., python_callable=fn).expand(...)`. Every map index of a mapped task
 * has its own task state store, but they all share an asset's store.
 */
import { attributeCalls, SyntaxNode } from "../syntax/parser";
import { analysis } from "../context";
import { CallInfo, FunctionInfo, SemanticModel, semanticModel } from "./model";
import { plainString, unparenthesize } from "../syntax/nodes";

export interface TaskMapping {
  /** The `.expand(...)` / `.expand_kwargs(...)` calls that map the function. */
  expansions: SyntaxNode[];
  /**
   * The function's parameters that differ between map indices, over all expansions; undefined when
   * some expansion does not tell (a splat, `expand_kwargs(xcom)`, `op_args=`).
   */
  mappedParameters?: string[];
}


interface FileMapping {
  byFunction: Map<FunctionInfo, TaskMapping>;
  partials: Map<FunctionInfo, CallInfo[]>;
}

const fileMappingAnalysis = analysis("task mapping", (context) => {
  const model = context.get(semanticModel);
  // The text tells cheaply whether the (slower) queries can find anything.
  const found: FileMapping = { byFunction: new Map(), partials: model.text.includes("python_callable") ? findPartials(model) : new Map() };
  if (model.text.includes(".expand")) for (const node of attributeCalls(model.tree, model.text, ["expand", "expand_kwargs"])) addExpansion(model, found, node);
  return found;
});

/** How `fn` is mapped, or undefined when nothing in the file maps it. */
export function mappingOf(model: SemanticModel, fn: FunctionInfo): TaskMapping | undefined {
  return fileMapping(model).byFunction.get(fn);
}

function fileMapping(model: SemanticModel): FileMapping {
  return model.context.get(fileMappingAnalysis);
}

function findPartials(model: SemanticModel): Map<FunctionInfo, CallInfo[]> {
  const partials = new Map<FunctionInfo, CallInfo[]>();
  for (const fn of model.functions) {
    const calls = fn.callableOf.filter((call) => call.callee?.endsWith(".partial"));
    if (calls.length > 0) partials.set(fn, calls);
  }
  return partials;
}

/** Records the function an `.expand(...)` call maps, following its receiver back through `.partial(...)`, `.override(...)` and names. */
function addExpansion(model: SemanticModel, file: FileMapping, expand: SyntaxNode): void {
  const callee = expand.childForFieldName("function")!;
  const method = callee.childForFieldName("attribute")!.text;
  let receiver: SyntaxNode | null = callee.childForFieldName("object");
  for (let depth = 0; receiver && depth < 8; depth++) {
    const node = unparenthesize(receiver);
    if (node.type === "identifier") {
      const fn = model.functionNamed(node.text, model.scopeOf(node));
      if (fn) {
        if (fn.task) record(file, fn, expand, taskFlowParameters(model, expand, method));
        return;
      }
      const binding = model.bindingOf(node);
      receiver = binding?.kind === "assign" ? binding.value ?? null : null;
      continue;
    }
    if (node.type !== "call") return;
    const fnNode = node.childForFieldName("function");
    if (fnNode?.type !== "attribute") return;
    const attribute = fnNode.childForFieldName("attribute")!.text;
    if (attribute === "partial") {
      const fn = [...file.partials].find(([, calls]) => calls.some((c) => c.node.id === node.id))?.[0];
      if (fn) {
        record(file, fn, expand, operatorParameters(model, expand, method));
        return;
      }
    } else if (attribute !== "override") return;
    receiver = fnNode.childForFieldName("object");
  }
}

function record(file: FileMapping, fn: FunctionInfo, expand: SyntaxNode, parameters: string[] | undefined): void {
  const existing = file.byFunction.get(fn);
  if (!existing) {
    file.byFunction.set(fn, { expansions: [expand], mappedParameters: parameters });
    return;
  }
  existing.expansions.push(expand);
  existing.mappedParameters = existing.mappedParameters && parameters ? [...new Set([...existing.mappedParameters, ...parameters])] : undefined;
}

/** `fn.expand(a=..., b=...)` maps `a` and `b`; `fn.expand_kwargs([{"a": 1}, ...])` the keys of its literal dictionaries. */
function taskFlowParameters(model: SemanticModel, expand: SyntaxNode, method: string): string[] | undefined {
  const args = model.callInfo(expand).args;
  if (args.hasSplat) return undefined;
  if (method === "expand") return args.positional.length === 0 ? [...args.keywords.keys()] : undefined;
  return args.positional.length === 1 && args.keywords.size === 0 ? literalDictionaryKeys(model, args.positional[0]) : undefined;
}

/** `PythonOperator.partial(...).expand(op_kwargs=[{"a": 1}, ...])` maps the callable's `a`. */
function operatorParameters(model: SemanticModel, expand: SyntaxNode, method: string): string[] | undefined {
  const args = model.callInfo(expand).args;
  if (method !== "expand" || args.hasSplat || args.positional.length > 0 || args.keywords.has("op_args")) return undefined;
  const opKwargs = args.keywords.get("op_kwargs");
  return opKwargs ? literalDictionaryKeys(model, opKwargs.value) : [];
}

/** The string keys of a list (or tuple) of dictionary literals, or undefined when any part is not literal. */
function literalDictionaryKeys(model: SemanticModel, expression: SyntaxNode): string[] | undefined {
  const list = model.resolveValue(expression);
  if (list.type !== "list" && list.type !== "tuple") return undefined;
  const keys = new Set<string>();
  for (const element of list.namedChildren) {
    if (element.type === "comment") continue;
    const dictionary = model.resolveValue(element);
    if (dictionary.type !== "dictionary") return undefined;
    for (const pair of dictionary.namedChildren) {
      if (pair.type === "comment") continue;
      const key = pair.type === "pair" ? plainString(pair.childForFieldName("key")) : undefined;
      if (key === undefined) return undefined;
      keys.add(key);
    }
  }
  return [...keys];
}
