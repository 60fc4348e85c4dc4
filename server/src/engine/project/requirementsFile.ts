/**
 * pip requirements and constraints files (`requirements*.txt`, `constraints*.txt`): Airflow
 * requirements line by line, following `-r` / `-c` includes, and Airflow's official constraints URL
 * (`-c https://raw.githubusercontent.com/apache/airflow/constraints-2.10.5/constraints-3.11.txt`),
 * which pins the version it names.
 */
import * as path from "node:path";
import { ProjectFiles } from "./files";
import { AirflowMention, exactMention, specifierMention } from "./pin";
import { isAirflowDistribution, parseRequirement } from "./requirement";

export interface ReadContext {
  files: ProjectFiles;
  /** Every path read so far, so that a change to any of them can invalidate what was concluded. */
  read: Set<string>;
}

const INCLUDE = /^(?:(-r|-c)\s*|(--requirement|--constraint)(?:\s*=\s*|\s+))(\S.*)$/;
const URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const AIRFLOW_CONSTRAINTS_URL = /\/apache\/airflow\/constraints-(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)\//;

/** The Airflow mentions of a requirements or constraints file and of the files it includes, in reading order. */
export function requirementsMentions(context: ReadContext, file: string, including: ReadonlySet<string> = new Set()): AirflowMention[] {
  if (including.has(file)) return [];
  context.read.add(file);
  const text = context.files.readFile(file);
  if (text === undefined) return [];
  const mentions: AirflowMention[] = [];
  for (const { text: line, number } of logicalLines(text)) {
    const source = { path: file, line: number };
    const include = INCLUDE.exec(line);
    if (include) {
      const target = include[3].trim().replace(/^(["'])(.*)\1$/, "$2");
      if (URL.test(target)) {
        const official = AIRFLOW_CONSTRAINTS_URL.exec(target);
        if (official) mentions.push(exactMention(official[1], source));
      } else {
        mentions.push(...requirementsMentions(context, path.resolve(path.dirname(file), target), new Set([...including, file])));
      }
      continue;
    }
    if (line.startsWith("-")) continue; // -e, --index-url, --find-links, ...
    // Per-requirement options (`--hash=...`) follow the requirement after white space.
    const option = line.search(/\s--?[A-Za-z]/);
    const requirement = parseRequirement(option < 0 ? line : line.slice(0, option));
    if (requirement && isAirflowDistribution(requirement.name)) mentions.push(specifierMention(requirement.specifier, source));
  }
  return mentions;
}

/** Lines as pip reads them: joined across a trailing backslash, comments removed, blank lines dropped; numbered from 1. */
function logicalLines(text: string): { text: string; number: number }[] {
  const result: { text: string; number: number }[] = [];
  // pip reads with universal newlines: `\r\n`, `\n` and a lone `\r` end a line.
  const physical = text.split(/\r\n?|\n/);
  for (let i = 0; i < physical.length; i++) {
    const number = i + 1;
    // Parts joined once at the end: appending to the joined line each time would copy it each time.
    const parts = [physical[i]];
    while (parts[parts.length - 1].endsWith("\\") && i + 1 < physical.length) {
      parts[parts.length - 1] = parts[parts.length - 1].slice(0, -1);
      parts.push(physical[++i]);
    }
    // `s`: a comment runs to the end of the line whatever it holds, so no start is tried twice.
    const line = parts.join("").replace(/(^|\s)#.*$/s, "").trim();
    if (line !== "") result.push({ text: line, number });
  }
  return result;
}
