/**
 * Generates docs/rules/ASxxx.md and docs/rules/README.md from the rules themselves: the metadata
 * (name, summary, default severity) comes from the registry, the prose from the doc comment right
 * above `export const ASxxx: Rule` in each rule file. It also writes the README's rules table and
 * the value schema of the `airflowStateStore.rules` setting in package.json. Run with `npm run docs`; test/docs checks that
 * the committed pages match what this would write.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { allRules, FixAvailability, Rule, SEVERITY_SETTINGS } from "../engine";
import { packageRoot, RULE_DOCS_FOLDER } from "./location";

const RULES_SOURCE_FOLDER = "server/src/engine/rules";
const RULE_FILE = /^AS\d{3}\.ts$/;
const RULE_PAGE = /^AS\d{3}\.md$/;
const INDEX_PAGE = "README.md";

/** The sections every rule's doc comment has, in this order (ruff's layout). */
export const REQUIRED_SECTIONS = ["What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"] as const;


export interface RuleDoc {
  rule: Rule;
  /** Path of the rule's source file relative to the package root, with forward slashes. */
  source: string;
  /** The doc comment's Markdown, with the comment markers removed. */
  markdown: string;
  /** What its "Fix safety" section says of the fix, as far as the prose tells; the rule's own `fix` must agree. */
  fixInProse: FixAvailability | undefined;
}

export interface RuleDocsCollection {
  /** The rules whose doc comment is complete, in code order. */
  docs: RuleDoc[];
  /** What keeps the other rules from having a page (no doc comment, a missing section, an unregistered file). */
  problems: string[];
}

/** Reads every rule file and pairs its doc comment with the registered rule. */
export function collectRuleDocs(root = packageRoot(), rules: readonly Rule[] = allRules): RuleDocsCollection {
  const folder = path.join(root, RULES_SOURCE_FOLDER);
  const files = fs.readdirSync(folder).filter((name) => RULE_FILE.test(name)).sort();
  const problems: string[] = [];
  const docs: RuleDoc[] = [];
  for (const file of files) {
    const code = file.slice(0, -".ts".length);
    if (!rules.some((r) => r.code === code)) problems.push(`${RULES_SOURCE_FOLDER}/${file} is not registered in ${RULES_SOURCE_FOLDER}/index.ts`);
  }
  // The registry lists the rules in code order, which is the pages' order too.
  for (const rule of rules) {
    const source = `${RULES_SOURCE_FOLDER}/${rule.code}.ts`;
    if (!files.includes(`${rule.code}.ts`)) {
      problems.push(`${rule.code} is registered but ${source} does not exist`);
      continue;
    }
    const markdown = docComment(fs.readFileSync(path.join(root, source), "utf8"), rule.code);
    if (markdown === undefined) {
      problems.push(`${source} has no doc comment directly above \`export const ${rule.code}: Rule\``);
      continue;
    }
    const missing = missingSections(markdown);
    if (missing.length > 0) {
      problems.push(`${source}: the doc comment needs the sections ${REQUIRED_SECTIONS.map((s) => `"## ${s}"`).join(", ")} in this order; missing or out of order: ${missing.join(", ")}`);
      continue;
    }
    docs.push({ rule, source, markdown, fixInProse: fixAvailability(section(markdown, "Fix safety") ?? "") });
  }
  return { docs, problems };
}

/** The Markdown of the `/** ... *\/` comment right above `export const CODE: Rule`, or undefined. */
export function docComment(source: string, code: string): string | undefined {
  // The comment body may not contain `*/`, so the match cannot start at an earlier comment.
  const match = new RegExp(String.raw`/\*\*((?:(?!\*/)[\s\S])*)\*/\s*export const ${code}\s*:\s*Rule\b`).exec(source);
  if (!match) return undefined;
  const lines = match[1].split(/\r?\n/).map((line) => line.replace(/^\s*\* ?/, "").replace(/\s+$/, ""));
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.length > 0 ? lines.join("\n") : undefined;
}

/** `## ` headings outside fenced code blocks, in order. */
function headings(markdown: string): string[] {
  const found: string[] = [];
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.startsWith("## ")) found.push(line.slice(3).trim());
  }
  return found;
}

/** Required sections that are absent or not in the required order. */
function missingSections(markdown: string): string[] {
  const present = headings(markdown);
  const missing: string[] = [];
  let last = -1;
  for (const wanted of REQUIRED_SECTIONS) {
    const index = present.indexOf(wanted);
    if (index <= last) missing.push(`"## ${wanted}"`);
    else last = index;
  }
  return missing;
}

/** The body of one `## ` section, up to the next `## ` heading outside code. */
function section(markdown: string, title: string): string | undefined {
  const body: string[] = [];
  let inFence = false;
  let inside = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && line.startsWith("## ")) {
      if (inside) break;
      inside = line.slice(3).trim() === title;
      continue;
    }
    if (inside) body.push(line);
  }
  return inside ? body.join("\n") : undefined;
}

/**
 * Reads the fix's safety from the "Fix safety" prose. The prose is written for people, so this
 * answers only what the words state plainly and returns undefined otherwise; the pages then say
 * nothing rather than something wrong.
 */
export function fixAvailability(fixSafety: string): FixAvailability | undefined {
  const text = fixSafety.replace(/`[^`]*`/g, " ").toLowerCase();
  // A whole sentence, so "No fix is offered for negative numbers" (a limit of an existing fix) does not count.
  if (/(^|[.:]\s+)(there is no (automatic )?fix|this rule (has|offers) no (automatic )?fix|no (automatic )?fix is (offered|available|provided))\s*([.:;]|$)/m.test(text)) return "none";
  const unsafe = /\bunsafe\b|\bnot safe\b/.test(text);
  const safe = /\bsafe\b/.test(text.replace(/\bunsafe\b|\bnot safe\b/g, " "));
  if (safe && unsafe) return "safe or unsafe";
  if (unsafe) return "unsafe";
  if (safe) return "safe";
  return undefined;
}

function fixLine(fix: FixAvailability): string {
  switch (fix) {
    case "none":
      return "none";
    case "safe or unsafe":
      return "available (safe or unsafe depending on the case; see Fix safety)";
    default:
      return `available (${fix})`;
  }
}

/**
 * For whoever edits the page, so it goes last: readers (the rendered page the editor opens, the raw
 * file, GitHub) start with the rule, not with a note to developers. An HTML comment, so no rendering
 * shows it.
 */
function generatedNotice(source: string): string {
  return `<!-- Generated from ${source} by \`npm run docs\`. Edit the doc comment there, not this file. -->`;
}

export function rulePage(doc: RuleDoc): string {
  const { rule } = doc;
  const facts = [`- Default severity: ${rule.defaultSeverity}`];
  facts.push(`- Fix: ${fixLine(rule.fix)}`);
  return [`# ${rule.code}: ${rule.name}`, "", rule.summary, "", ...facts, "", doc.markdown, "", generatedNotice(doc.source), ""].join("\n");
}

function tableCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

export function indexPage(docs: readonly RuleDoc[]): string {
  const rows = docs.map(({ rule }) =>
    `| [${rule.code}](${rule.code}.md) | \`${rule.name}\` | ${tableCell(rule.summary)} | ${rule.defaultSeverity} | ${rule.fix} |`,
  );
  return [
    "# Rules",
    "",
    "Every rule checked by the language server and by `airflow-state-lint`. Change a rule's severity, or turn it",
    "off, with the `airflowStateStore.rules` setting or the CLI's `--rule-severity CODE=LEVEL`.",
    "",
    "| Code | Name | Summary | Default severity | Fix |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    generatedNotice(`${RULES_SOURCE_FOLDER}/AS*.ts`),
    "",
  ].join("\n");
}

/** The README's table of rules lies between these lines; everything between them is generated. */
export const README_TABLE_BEGIN = "<!-- The rules table is generated from the registry by `npm run docs`; edit the rules, not this table. -->";
export const README_TABLE_END = "<!-- End of the generated rules table. -->";

/** The README's table: every rule with its page, summary, default severity and fix. */
export function readmeRuleTable(rules: readonly Rule[] = allRules): string {
  return [
    "| Code | Name | What it finds | Default severity | Fix |",
    "|---|---|---|---|---|",
    ...rules.map((rule) => `| [${rule.code}](${RULE_DOCS_FOLDER}/${rule.code}.md) | \`${rule.name}\` | ${tableCell(rule.summary)} | ${rule.defaultSeverity} | ${rule.fix} |`),
  ].join("\n");
}

/** `readme` with its generated table replaced by the registry's; undefined when it has no such table. */
export function withReadmeRuleTable(readme: string, rules: readonly Rule[] = allRules): string | undefined {
  const begin = readme.indexOf(README_TABLE_BEGIN);
  const end = readme.indexOf(README_TABLE_END);
  if (begin === -1 || end < begin) return undefined;
  return `${readme.slice(0, begin)}${README_TABLE_BEGIN}\n${readmeRuleTable(rules)}\n${readme.slice(end)}`;
}

/** The manifest's setting of severities per rule, whose value schema lists every rule. */
export const RULES_SETTING = "airflowStateStore.rules";

const SEVERITY_DESCRIPTIONS: Record<(typeof SEVERITY_SETTINGS)[number], string> = {
  off: "Not checked.",
  hint: "Shown as faint dots under the code only; not in the Problems panel.",
  info: "An information in the Problems panel.",
  warning: "A warning.",
  error: "An error.",
};

/**
 * The value schema of `airflowStateStore.rules`: one property per rule, each one of the five
 * severities, so the Settings UI edits it as a table with the codes to choose from.
 */
export function rulesSettingProperties(rules: readonly Rule[] = allRules): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const rule of rules) {
    properties[rule.code] = {
      type: "string",
      enum: [...SEVERITY_SETTINGS],
      enumDescriptions: SEVERITY_SETTINGS.map((severity) => SEVERITY_DESCRIPTIONS[severity]),
      markdownDescription: `\`${rule.name}\`: ${rule.summary}. Default: ${rule.defaultSeverity}.`,
    };
  }
  return properties;
}

interface ManifestSection {
  properties?: Record<string, { properties?: unknown }>;
}

/** The manifest with the rules setting's schema replaced by the registry's; undefined when it declares no such setting. */
export function withRulesSettingSchema(manifestText: string, rules: readonly Rule[] = allRules): string | undefined {
  const manifest = JSON.parse(manifestText) as { contributes?: { configuration?: ManifestSection | ManifestSection[] } };
  const configuration = manifest.contributes?.configuration;
  const sections = Array.isArray(configuration) ? configuration : configuration ? [configuration] : [];
  const setting = sections.map((section) => section.properties?.[RULES_SETTING]).find((found) => found !== undefined);
  if (!setting) return undefined;
  setting.properties = rulesSettingProperties(rules);
  // The manifest is kept in the layout `JSON.stringify(…, null, 2)` writes, as npm writes it.
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Rewrites the manifest's rules schema; says what it did, or why it could not. */
export function writeRulesSettingSchema(root = packageRoot(), rules: readonly Rule[] = allRules): { touched: string[]; problems: string[] } {
  const file = path.join(root, "package.json");
  const manifest = fs.readFileSync(file, "utf8");
  const updated = withRulesSettingSchema(manifest, rules);
  if (updated === undefined) return { touched: [], problems: [`package.json declares no ${RULES_SETTING} setting`] };
  if (updated === manifest) return { touched: [], problems: [] };
  fs.writeFileSync(file, updated);
  return { touched: [`wrote the ${RULES_SETTING} schema of package.json`], problems: [] };
}

export interface ExpectedRuleDocs {
  /** The exact content of every page that can be generated, keyed by file name inside docs/rules/. */
  files: Map<string, string>;
  problems: string[];
}

export function expectedRuleDocs(root = packageRoot(), rules: readonly Rule[] = allRules): ExpectedRuleDocs {
  const { docs, problems } = collectRuleDocs(root, rules);
  const files = new Map<string, string>();
  for (const doc of docs) files.set(`${doc.rule.code}.md`, rulePage(doc));
  files.set(INDEX_PAGE, indexPage(docs));
  return { files, problems };
}

export interface RuleDocsDrift {
  missing: string[];
  stale: string[];
  /** ASxxx.md pages of rules that no longer exist. */
  extra: string[];
}

/** How the pages on disk differ from what the generator would write (file names inside docs/rules/). */
export function ruleDocsDrift(root = packageRoot(), rules: readonly Rule[] = allRules): RuleDocsDrift {
  const { files: expected } = expectedRuleDocs(root, rules);
  const folder = path.join(root, RULE_DOCS_FOLDER);
  const onDisk = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const drift: RuleDocsDrift = { missing: [], stale: [], extra: [] };
  for (const [name, content] of expected) {
    if (!onDisk.includes(name)) drift.missing.push(name);
    else if (fs.readFileSync(path.join(folder, name), "utf8") !== content) drift.stale.push(name);
  }
  drift.extra = onDisk.filter((name) => isPageOfUnknownRule(name, rules)).sort();
  return drift;
}

/** A page named after a rule code that is not registered (a rule that was removed or renumbered). */
function isPageOfUnknownRule(name: string, rules: readonly Rule[]): boolean {
  return RULE_PAGE.test(name) && !rules.some((r) => `${r.code}.md` === name);
}

export interface WriteResult {
  /** What was written or removed, e.g. `wrote docs/rules/AS102.md`. */
  touched: string[];
  problems: string[];
}

/**
 * Writes the pages that changed and removes pages of rules that no longer exist. A rule whose doc
 * comment is incomplete keeps whatever page it had; the problem is returned for the caller to report.
 */
export function writeRuleDocs(root = packageRoot(), rules: readonly Rule[] = allRules): WriteResult {
  const { files, problems } = expectedRuleDocs(root, rules);
  const folder = path.join(root, RULE_DOCS_FOLDER);
  fs.mkdirSync(folder, { recursive: true });
  const touched: string[] = [];
  for (const [name, content] of files) {
    const file = path.join(folder, name);
    if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === content) continue;
    fs.writeFileSync(file, content);
    touched.push(`wrote ${RULE_DOCS_FOLDER}/${name}`);
  }
  for (const name of fs.readdirSync(folder).filter((n) => isPageOfUnknownRule(n, rules)).sort()) {
    fs.unlinkSync(path.join(folder, name));
    touched.push(`removed ${RULE_DOCS_FOLDER}/${name}`);
  }
  return { touched, problems };
}

/** Rewrites the README's rules table; says what it did, or why it could not. */
export function writeReadmeRuleTable(root = packageRoot(), rules: readonly Rule[] = allRules): { touched: string[]; problems: string[] } {
  const file = path.join(root, "README.md");
  const readme = fs.readFileSync(file, "utf8");
  const updated = withReadmeRuleTable(readme, rules);
  if (updated === undefined) return { touched: [], problems: ["README.md has no generated rules table (its begin and end comments are missing)"] };
  if (updated === readme) return { touched: [], problems: [] };
  fs.writeFileSync(file, updated);
  return { touched: ["wrote the rules table of README.md"], problems: [] };
}

if (require.main === module) {
  const pages = writeRuleDocs();
  const readme = writeReadmeRuleTable();
  const manifest = writeRulesSettingSchema();
  const touched = [...pages.touched, ...readme.touched, ...manifest.touched];
  const problems = [...pages.problems, ...readme.problems, ...manifest.problems];
  for (const line of touched) console.log(line);
  if (touched.length === 0) console.log(`${RULE_DOCS_FOLDER} is up to date.`);
  if (problems.length > 0) {
    console.error(`Some rules have no page:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    process.exitCode = 1;
  }
}
