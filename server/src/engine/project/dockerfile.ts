/**
 * `Dockerfile`: the Airflow image the project builds on. `FROM apache/airflow:3.2.1-python3.11`
 * (also `slim-` tags) pins that Airflow version; Astro Runtime images
 * (`quay.io/astronomer/astro-runtime:13.0.0`, `astrocrpublic.azurecr.io/runtime:3.0-1`) pin the
 * Airflow version their runtime ships. Build arguments declared before the first `FROM` are
 * substituted (`ARG AIRFLOW_VERSION=2.10.5` … `FROM apache/airflow:${AIRFLOW_VERSION}`), and a stage
 * built `FROM` an earlier stage inherits its image. The last Airflow stage counts.
 */
import { compareReleases } from "./pep440";
import { AirflowMention, exactMention, PinSource, STATE_STORE_RELEASE } from "./pin";
import { astroRuntimeOf } from "./astroRuntime";

const AIRFLOW_TAG = /^(?:slim-)?(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)(?:-python\d+(?:\.\d+)?)?$/;
const DOCKER_HUB = /^(?:docker\.io|index\.docker\.io|registry-1\.docker\.io)\//;

export function dockerfileMentions(text: string, file: string): AirflowMention[] {
  const globalArgs = new Map<string, { value?: string; line: number }>();
  const stages = new Map<string, AirflowMention>();
  let seenFrom = false;
  let last: AirflowMention | undefined;
  for (const { text: line, number } of instructions(text)) {
    const match = /^(\w+)\s+(.*)$/s.exec(line);
    if (!match) continue;
    const instruction = match[1].toUpperCase();
    if (instruction === "ARG" && !seenFrom) {
      // Only arguments declared before the first FROM can be used in FROM lines.
      for (const declaration of match[2].trim().split(/\s+/)) {
        const [name, ...value] = declaration.split("=");
        globalArgs.set(name, { value: value.length > 0 ? value.join("=").replace(/^(["'])(.*)\1$/, "$2") : undefined, line: number });
      }
    } else if (instruction === "FROM") {
      seenFrom = true;
      const words = match[2].trim().split(/\s+/).filter((word) => !word.startsWith("--"));
      if (words.length === 0) continue;
      const alias = words.length >= 3 && words[1].toUpperCase() === "AS" ? words[2].toLowerCase() : undefined;
      const substituted: { value: string; line: number }[] = [];
      const image = words[0].replace(/\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (_, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
        const declared = globalArgs.get((braced ?? bare)!);
        if (declared?.value !== undefined && declared.value !== "") {
          substituted.push({ value: declared.value, line: declared.line });
          return declared.value;
        }
        return fallback ?? "";
      });
      const inherited = stages.get(image.toLowerCase());
      let mention = inherited ?? imageMention(image, { path: file, line: number });
      // The version is written where the build argument that holds it is declared, when one does.
      const version = mention?.pin?.version;
      const holder = !inherited && version !== undefined ? substituted.find((argument) => argument.value.includes(version)) : undefined;
      if (holder) mention = imageMention(image, { path: file, line: holder.line });
      if (mention) {
        last = mention;
        if (alias) stages.set(alias, mention);
      }
    }
  }
  return last ? [last] : [];
}

/** What an image reference says about Airflow; undefined for images that are not Airflow's. */
function imageMention(reference: string, source: PinSource): AirflowMention | undefined {
  const withoutDigest = reference.split("@")[0];
  const colon = withoutDigest.lastIndexOf(":");
  const hasTag = colon > withoutDigest.lastIndexOf("/");
  const name = (hasTag ? withoutDigest.slice(0, colon) : withoutDigest).toLowerCase().replace(DOCKER_HUB, "");
  const tag = hasTag ? withoutDigest.slice(colon + 1) : "latest";
  if (name === "apache/airflow") {
    const version = AIRFLOW_TAG.exec(tag);
    return version ? exactMention(version[1], source) : { source };
  }
  if (name.endsWith("/astro-runtime") || name === "astro-runtime" || name === "astrocrpublic.azurecr.io/runtime") {
    const runtime = astroRuntimeOf(tag);
    if (!runtime) return { source };
    return {
      source,
      pin: {
        version: runtime.runtime,
        below33: compareReleases(runtime.airflowRelease, STATE_STORE_RELEASE) < 0,
        source,
        astroRuntime: { airflow: runtime.airflow },
      },
    };
  }
  return undefined;
}

/** Instructions joined across trailing backslashes, comment lines dropped; numbered by their first line, from 1. */
function instructions(text: string): { text: string; number: number }[] {
  const result: { text: string; number: number }[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(#|$)/.test(lines[i])) continue;
    const number = i + 1;
    // Parts joined once at the end: appending to the joined instruction each time would copy it each time.
    const parts = [lines[i].trimEnd()];
    while (parts[parts.length - 1].endsWith("\\") && i + 1 < lines.length) {
      const next = lines[++i];
      if (/^\s*#/.test(next)) continue;
      parts[parts.length - 1] = parts[parts.length - 1].slice(0, -1);
      parts.push(next.trimEnd());
    }
    result.push({ text: parts.join(" ").trim(), number });
  }
  return result;
}
