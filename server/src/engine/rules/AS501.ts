import { captures, SyntaxNode } from "../syntax/parser";
import { pinStatement } from "../project/pin";
import { Rule } from "./rule";
import { SemanticModel } from "../airflow/model";
import { codeSpan } from "../syntax/markdown";

/**
 * ## What it does
 * Checks for state stores used in a project that pins Airflow below 3.3: a `requirements*.txt` or
 * constraints file, `pyproject.toml` (PEP 621, Poetry, uv), `setup.cfg`, `setup.py` or the
 * `Dockerfile`'s Airflow or Astro Runtime image, whichever is nearest to the DAG file. A store use is
 * `context["task_state_store"]`, `context.get("asset_state_store")`, a `task_state_store` /
 * `asset_state_store` parameter used in the body, or `NEVER_EXPIRE` imported from `airflow.sdk`. The
 * rule reports the first one in the file only: the fix is the same for all of them.
 *
 * It is silent when no pin is found, when the pin allows Airflow 3.3 or later, and when the project
 * only sets a lower bound (`apache-airflow>=3.0`).
 *
 * ## Why is this bad?
 * The task and asset state stores exist from Airflow 3.3 on. Under an older Airflow the context has
 * no `task_state_store` key (`context["task_state_store"]` raises `KeyError`, `.get` returns `None`),
 * a `task_state_store=None` parameter is never filled in and stays `None`, so the first `get` or `set`
 * fails with `AttributeError`, and importing `NEVER_EXPIRE` fails when the DAG file is parsed.
 *
 * ## Example
 * ```python
 * # requirements.txt: apache-airflow==2.10.5
 * @task
 * def export(task_state_store=None):
 *     cursor = task_state_store.get("cursor", default=0)
 * ```
 *
 * ## Use instead
 * ```python
 * # requirements.txt: apache-airflow==3.3.0
 * @task
 * def export(task_state_store=None):
 *     cursor = task_state_store.get("cursor", default=0)
 * ```
 *
 * ## Fix safety
 * There is no fix: upgrading Airflow is a project decision, and until then the state has to live
 * somewhere the code chooses.
 */
export const AS501: Rule = {
  code: "AS501",
  name: "store-below-airflow-3-3",
  summary: "State store used while the project pins Airflow below 3.3, which has no state stores",
  defaultSeverity: "error",
  category: "version",
  fix: "none",
  inputs: { airflowPin: true },
  mayReport: ({ airflowPin, facts }) => airflowPin?.below33 === true && facts.mentionsAny(["_state_store", "NEVER_EXPIRE"]),
  check({ model, path, airflowPin, report }) {
    if (!airflowPin?.below33) return;
    const use = firstStoreUse(model);
    if (!use) return;
    report({
      node: use.node,
      message: `${use.failure}: state stores exist only from Airflow 3.3 on. Here ${pinStatement(airflowPin, path)}; upgrade to Airflow 3.3 or later before using them.`,
    });
  },
};

const STORES = `"^(task_state_store|asset_state_store)$"`;
const STORE_NAMES = `((identifier) @name (#match? @name ${STORES}))`;
const CONTEXT_SUBSCRIPTS = `(subscript subscript: (string) @key) @access`;
const CONTEXT_GETS = `(call function: (attribute attribute: (identifier) @method (#eq? @method "get")) arguments: (argument_list . (string) @key)) @access`;

interface StoreUse {
  node: SyntaxNode;
  /** What goes wrong there at run time, as the start of the message. */
  failure: string;
}

/** The first place in the file that reaches a state store, with what fails there. */
function firstStoreUse(model: SemanticModel): StoreUse | undefined {
  const uses = [...contextAccesses(model), ...parameterUses(model), ...neverExpireImports(model)];
  return uses.sort((a, b) => a.node.startIndex - b.node.startIndex)[0];
}

/** `context["task_state_store"]` and `context.get("asset_state_store")`. */
function contextAccesses(model: SemanticModel): StoreUse[] {
  if (!model.text.includes("_state_store")) return [];
  const uses: StoreUse[] = [];
  for (const node of [...captures(model.root, CONTEXT_SUBSCRIPTS, "access"), ...captures(model.root, CONTEXT_GETS, "access")]) {
    const store = model.storeReference(node);
    // `asset_state_store[ORDERS]` is a store too, but reached through the parameter, reported there.
    if (!store || store.indexed) continue;
    const failure = node.type === "subscript" ? "raises `KeyError`" : "returns `None`";
    uses.push({ node, failure: `${codeSpan(node.text)} ${failure} at run time` });
  }
  return uses;
}

/** Uses (not the declaration) of a `task_state_store` / `asset_state_store` parameter. */
function parameterUses(model: SemanticModel): StoreUse[] {
  const uses: StoreUse[] = [];
  for (const identifier of captures(model.root, STORE_NAMES, "name")) {
    const binding = model.bindingOf(identifier);
    if (binding?.kind !== "parameter" || binding.target.id === identifier.id) continue;
    const parent = identifier.parent;
    // `x.task_state_store` and `f(task_state_store=...)` name something else.
    if (parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === identifier.id) continue;
    if (parent?.type === "keyword_argument" && parent.childForFieldName("name")?.id === identifier.id) continue;
    const fn = model.functions.find((f) => f.parameters.some((p) => p.nameNode.id === binding.target.id));
    const parameter = fn?.parameters.find((p) => p.nameNode.id === binding.target.id);
    const isTask = fn !== undefined && (fn.task !== undefined || fn.callableOf.length > 0);
    const outcome = parameter?.default ? `the parameter keeps its default ${codeSpan(parameter.default.text)}` : "calling the task fails with `TypeError`";
    const failure = isTask ? `Airflow never passes ${codeSpan(identifier.text)} to this task, so ${outcome}` : `${codeSpan(identifier.text)} can never hold a state store`;
    uses.push({ node: identifier, failure });
  }
  return uses;
}

/** `from airflow.sdk import NEVER_EXPIRE`. */
function neverExpireImports(model: SemanticModel): StoreUse[] {
  const uses: StoreUse[] = [];
  for (const bindings of model.module.bindings.values()) {
    for (const binding of bindings) {
      if (binding.kind === "import" && binding.qualifiedName === "airflow.sdk.NEVER_EXPIRE") {
        uses.push({ node: binding.target, failure: "Importing `NEVER_EXPIRE` from `airflow.sdk` fails with `ImportError`" });
      }
    }
  }
  return uses;
}
