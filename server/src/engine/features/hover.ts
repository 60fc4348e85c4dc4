/**
 * Hover help for the state store API: a short reference (from the Airflow 3.3 behaviour the rules
 * encode) on `task_state_store`, `asset_state_store`, `NEVER_EXPIRE`, `execute_resumable`,
 * `external_id_key`, the six `ResumableJobMixin` methods and the provider operators built on the
 * mixin, with links to the rules about them.
 */
import { PythonDocument } from "../syntax/document";
import { SyntaxNode } from "../syntax/parser";
import { ruleByCode } from "../rules";
import { definitionStatement, plainString } from "../syntax/nodes";
import { SemanticModel } from "../airflow/model";
import { MIXIN_PROVIDER_OPERATORS, ProviderOperator, providerOperatorInfo } from "../airflow/resumableOperators";

export interface HoverInfo {
  /** UTF-16 offsets of the hovered name. */
  start: number;
  end: number;
  markdown: string;
}

interface Topic {
  markdown: string;
  /** Rules about the symbol; only those the registry holds are linked. */
  rules: string[];
  /** Only a method definition or an attribute access (`self.submit_job`) counts, not any variable of that name. */
  memberOnly?: boolean;
}

const STORE_RULES = ["AS101", "AS102", "AS105", "AS106", "AS107"];

const MIXIN_METHOD_NOTE =
  "One of the six abstract methods of `ResumableJobMixin`: a subclass missing any of them fails with `TypeError: Can't instantiate abstract class` when the DAG is parsed.";

function mixinMethod(signature: string, description: string, rules: string[] = []): Topic {
  return { markdown: `\`\`\`python\n${signature}\n\`\`\`\n${description}\n\n${MIXIN_METHOD_NOTE}`, rules: ["AS303", "AS309", ...rules], memberOnly: true };
}

const TOPICS: ReadonlyMap<string, Topic> = new Map<string, Topic>([
  [
    "task_state_store",
    {
      markdown: [
        "**`task_state_store`**: key/value state of one task instance (DAG, run, task and map index) that survives its retries.",
        "```python",
        "tss.get(key, default=None)",
        "tss.set(key, value, retention=timedelta(days=7))  # or NEVER_EXPIRE",
        "tss.delete(key)",
        "tss.clear()  # this task instance (this map index) only; takes no arguments",
        "```",
        "Values must be JSON (`None` raises `ValueError`; tuples, sets and datetimes raise `pydantic.ValidationError`); keys are short strings without `.` or `/`. Entries expire after `[state_store] default_retention_days` (30) unless `retention=` says otherwise, and are kept when the task instance is cleared. Reach it as `context[\"task_state_store\"]` or a `task_state_store=None` parameter.",
      ].join("\n"),
      rules: [...STORE_RULES, "AS103", "AS205", "AS207"],
    },
  ],
  [
    "asset_state_store",
    {
      markdown: [
        "**`asset_state_store`**: key/value metadata of one asset, shared by every DAG run, with no expiry.",
        "```python",
        "@task(inlets=[ORDERS], outlets=[ORDERS])",
        "def load(asset_state_store=None):",
        "    store = asset_state_store[ORDERS]",
        '    store.set("watermark", datetime.now(tz=timezone.utc).isoformat())',
        "```",
        "Index it with an asset among the task's inlets or outlets (any other raises `KeyError`); un-indexed `get`/`set` work only when the task has exactly one. `set` takes no `retention`. In an `async` task use `await store.aget(...)`, `aset`, `adelete`, `aclear`: the same rules apply. Take it as a named parameter, not together with `**context`. Mapped task instances share it: the last writer wins.",
      ].join("\n"),
      rules: [...STORE_RULES, "AS104", "AS201", "AS202", "AS203", "AS204"],
    },
  ],
  [
    "NEVER_EXPIRE",
    {
      markdown: [
        "**`NEVER_EXPIRE`** (`from airflow.sdk import NEVER_EXPIRE`): `timedelta.max`.",
        "```python",
        'task_state_store.set("cursor", cursor, retention=NEVER_EXPIRE)',
        "```",
        "As the `retention=` of `task_state_store.set`, the entry never expires. Without `retention=` it expires after `[state_store] default_retention_days` (30 by default). `retention` takes a `timedelta`, `NEVER_EXPIRE` or `None`; an integer raises `TypeError`.",
      ].join("\n"),
      rules: ["AS103"],
    },
  ],
  [
    "execute_resumable",
    {
      markdown: [
        "**`ResumableJobMixin.execute_resumable(context)`**",
        "```python",
        "def execute(self, context):",
        "    return self.execute_resumable(context)",
        "```",
        "Reads the job id stored under `external_id_key`: an active job is reconnected to (`poll_until_complete`), a succeeded one returns `get_job_result`, otherwise a new job is submitted and its id stored, with the default retention. `execute()` must return it and do nothing else.",
      ].join("\n"),
      rules: ["AS302"],
      memberOnly: true,
    },
  ],
  [
    "external_id_key",
    {
      markdown: [
        "**`external_id_key`**: the task state store key under which `ResumableJobMixin` keeps the external job id (default `\"remote_job_id\"`).",
        "",
        "Set a specific key once, before the first deploy, and never rename it: task instances retried after a rename do not find the id stored under the old key and submit the job again.",
      ].join("\n"),
      rules: ["AS301", "AS308"],
    },
  ],
  ["submit_job", mixinMethod("def submit_job(self, context): ...", "Submits the external job and returns its id (a JSON value), which is stored before polling. Returning `None` turns crash safety off: nothing is stored.", ["AS306"])],
  ["get_job_status", mixinMethod("def get_job_status(self, external_id, context) -> str: ...", "The job's current status, passed to `is_job_active` and `is_job_succeeded`.")],
  ["is_job_active", mixinMethod("def is_job_active(self, status) -> bool: ...", "Whether the status means the job still runs: after a crash the task reconnects to it instead of submitting it again.")],
  ["is_job_succeeded", mixinMethod("def is_job_succeeded(self, status) -> bool: ...", "Whether the status means the job succeeded: its result is returned without submitting it again.")],
  ["poll_until_complete", mixinMethod("def poll_until_complete(self, external_id, context) -> None: ...", "Waits until the job ends; raises when it failed.")],
  ["get_job_result", mixinMethod("def get_job_result(self, external_id, context): ...", "The task's return value for a finished job.")],
]);

/** The hover for the position `offset` of the document, or undefined when nothing there has one. */
export function hoverAt(document: PythonDocument, offset: number, ruleLink: (code: string) => string): HoverInfo | undefined {
  if (!document.isRelevant()) return undefined;
  const node = document.tree.rootNode.namedDescendantForIndex(offset);
  const found = hoveredName(node);
  if (!found) return undefined;
  const topic = TOPICS.get(found.name) ?? providerOperatorTopic(document, found.node);
  if (!topic || (topic.memberOnly && !isMember(found.node))) return undefined;
  const rules = topic.rules.filter((code) => ruleByCode(code)).sort();
  const links = rules.map((code) => `[${code}](${ruleLink(code)})`).join(" · ");
  return { start: found.node.startIndex, end: found.node.endIndex, markdown: links ? `${topic.markdown}\n\nRules: ${links}` : topic.markdown };
}

const PROVIDER_OPERATOR_NAMES = new Set(MIXIN_PROVIDER_OPERATORS);

/** The topic of a provider operator built on the mixin, when the identifier names one (`from airflow.providers... import AthenaOperator`). */
function providerOperatorTopic(document: PythonDocument, identifier: SyntaxNode): Topic | undefined {
  if (identifier.type !== "identifier" || !PROVIDER_OPERATOR_NAMES.has(identifier.text)) return undefined;
  const parent = identifier.parent;
  const expression = parent?.type === "attribute" && parent.childForFieldName("attribute")?.id === identifier.id ? parent : identifier;
  const model = new SemanticModel(document.tree, document.getText());
  const qualified = model.qualifiedName(expression) ?? importedName(identifier);
  const operator = qualified ? providerOperatorInfo(qualified) : undefined;
  return operator ? { markdown: providerOperatorMarkdown(operator), rules: ["AS305", "AS307", "AS405", "AS406", "AS407", "AS502"] } : undefined;
}

/** `module.Name` for a name in a `from module import Name` statement. */
function importedName(identifier: SyntaxNode): string | undefined {
  let statement: SyntaxNode | null = identifier.parent;
  while (statement && statement.type !== "import_from_statement") statement = statement.parent;
  const module = statement?.childForFieldName("module_name");
  return module ? `${module.text}.${identifier.text}` : undefined;
}

function providerOperatorMarkdown(operator: ProviderOperator): string {
  const key = operator.externalIdKey ? `under \`${operator.externalIdKey}\`` : "under its own key";
  return [
    `**\`${operator.name}\`** (\`${operator.module}\`) is built on \`ResumableJobMixin\`.`,
    "",
    `On its synchronous path (waiting for the job, not deferrable) with \`durable=True\`, the default, it stores the external job id in the task state store ${key}, so a retry after a worker crash reconnects to the running job instead of submitting it again. The deferrable path and a submit that does not wait are not protected, and \`retries=0\` leaves nothing to recover. Needs Airflow 3.3: below it the provider's shim stores nothing.`,
  ].join("\n");
}

/** The name at `node`: an identifier, or the context key of `context["task_state_store"]`. */
function hoveredName(node: SyntaxNode): { name: string; node: SyntaxNode } | undefined {
  if (node.type === "identifier") return { name: node.text, node };
  const literal = node.type === "string_content" ? node.parent : node.type === "string" ? node : undefined;
  const key = literal ? plainString(literal) : undefined;
  if (literal && (key === "task_state_store" || key === "asset_state_store")) return { name: key, node: literal };
  return undefined;
}

/** A method definition's name in a class body, or the attribute of `obj.name`. */
function isMember(identifier: SyntaxNode): boolean {
  const parent = identifier.parent;
  if (!parent) return false;
  if (parent.type === "attribute") return parent.childForFieldName("attribute")?.id === identifier.id;
  if (parent.type !== "function_definition" || parent.childForFieldName("name")?.id !== identifier.id) return false;
  const definition = definitionStatement(parent);
  return definition.parent?.type === "block" && definition.parent.parent?.type === "class_definition";
}
