/**
 * `pyproject.toml`: PEP 621 dependencies (`[project] dependencies`, `optional-dependencies`), PEP 735
 * `[dependency-groups]`, uv's `[tool.uv]` override / constraint / dev dependencies, and Poetry's
 * `[tool.poetry.dependencies]` (also `dev-dependencies` and `[tool.poetry.group.NAME.dependencies]`),
 * where `apache-airflow = "^2.10"` or `{ version = "2.10.5", extras = [...] }`.
 */
import { AirflowMention, poetryMention, specifierMention } from "./pin";
import { isAirflowDistribution, parseRequirement } from "./requirement";
import { parseToml, TomlError, tomlLookup, TomlTable, TomlValue } from "./toml";

export function pyprojectMentions(text: string, file: string): AirflowMention[] {
  let document: TomlTable;
  try {
    document = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) return [];
    throw error;
  }
  const mentions: AirflowMention[] = [];
  const requirementArrays: (TomlValue | undefined)[] = [
    // uv applies overrides instead of what the dependencies say, so they are read first.
    tomlLookup(document, ["tool", "uv", "override-dependencies"]),
    tomlLookup(document, ["tool", "uv", "constraint-dependencies"]),
    tomlLookup(document, ["project", "dependencies"]),
    ...tableValues(tomlLookup(document, ["project", "optional-dependencies"])),
    ...tableValues(tomlLookup(document, ["dependency-groups"])),
    tomlLookup(document, ["tool", "uv", "dev-dependencies"]),
  ];
  for (const array of requirementArrays) {
    if (array?.type !== "array") continue;
    for (const item of array.items) {
      if (item.type !== "string") continue;
      const requirement = parseRequirement(item.value);
      if (requirement && isAirflowDistribution(requirement.name)) mentions.push(specifierMention(requirement.specifier, { path: file, line: item.line }));
    }
  }
  const poetryTables = [
    tomlLookup(document, ["tool", "poetry", "dependencies"]),
    tomlLookup(document, ["tool", "poetry", "dev-dependencies"]),
    ...tableValues(tomlLookup(document, ["tool", "poetry", "group"])).map((group) => (group?.type === "table" ? group.entries.get("dependencies") : undefined)),
  ];
  for (const table of poetryTables) {
    if (table?.type !== "table") continue;
    for (const [name, value] of table.entries) {
      if (!isAirflowDistribution(name)) continue;
      const constraint = value.type === "table" ? value.entries.get("version") : value;
      const source = { path: file, line: (constraint ?? value).line };
      mentions.push(constraint?.type === "string" ? poetryMention(constraint.value, source) : { source });
    }
  }
  return mentions;
}

function tableValues(value: TomlValue | undefined): TomlValue[] {
  return value?.type === "table" ? [...value.entries.values()] : [];
}
