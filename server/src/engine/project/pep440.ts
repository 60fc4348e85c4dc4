/**
 * PEP 440 versions and version specifiers, and Poetry's constraint syntax translated into them: as
 * much as it takes to tell whether a requirement keeps a package below a given release. Only the
 * upper side of a constraint matters for that, so lower bounds and exclusions are parsed but never
 * narrow anything.
 */

export interface Version {
  epoch: number;
  /** `3.2.1` → [3, 2, 1]. */
  release: number[];
  /** Whether the version is a pre-release or development release (`3.3.0rc1`, `3.3.0.dev0`). */
  prerelease: boolean;
}

/** The canonical PEP 440 pattern (appendix B of the PEP), anchored and case-insensitive. */
const VERSION =
  /^\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)([-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?((?:-\d+)|(?:[-_.]?(?:post|rev|r)[-_.]?\d*))?([-_.]?dev[-_.]?\d*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$/i;

export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text);
  if (!match) return undefined;
  return {
    epoch: match[1] ? Number(match[1]) : 0,
    release: match[2].split(".").map(Number),
    prerelease: match[3] !== undefined || match[5] !== undefined,
  };
}

/** Compares release segments, padding the shorter with zeros: [3, 3] equals [3, 3, 0]. */
export function compareReleases(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

export type Operator = "~=" | "==" | "!=" | "<=" | ">=" | "<" | ">" | "===";

export interface Clause {
  operator: Operator;
  /** The version as written, without a trailing `.*`. */
  version: string;
  /** `==3.2.*` / `!=3.2.*`. */
  wildcard: boolean;
}

/** Alternatives (Poetry's `||`), each a list of clauses that must all hold. A PEP 440 specifier set has one alternative. */
export type Constraint = Clause[][];

const CLAUSE = /^(~=|===|==|!=|<=|>=|<|>)\s*(\S+)$/;

/** `>=2.8, <3.3` → its clauses; undefined when any part is not a valid specifier (e.g. `==${AIRFLOW_VERSION}`). */
export function parseSpecifierSet(text: string): Constraint | undefined {
  const clauses: Clause[] = [];
  for (const part of text.split(",")) {
    const trimmed = part.trim();
    if (trimmed === "") continue;
    const match = CLAUSE.exec(trimmed);
    if (!match) return undefined;
    const clause = clauseOf(match[1] as Operator, match[2]);
    if (!clause) return undefined;
    clauses.push(clause);
  }
  return clauses.length > 0 ? [clauses] : undefined;
}

function clauseOf(operator: Operator, written: string): Clause | undefined {
  if (operator === "===") return { operator, version: written, wildcard: false };
  const wildcard = written.endsWith(".*");
  if (wildcard && operator !== "==" && operator !== "!=") return undefined;
  const version = wildcard ? written.slice(0, -2) : written;
  const parsed = parseVersion(version);
  if (!parsed) return undefined;
  // `~=` needs at least two release components (`~=3` is invalid).
  if (operator === "~=" && parsed.release.length < 2) return undefined;
  return { operator, version, wildcard };
}

/**
 * Poetry's constraint syntax (`^2.10`, `~3.2`, `2.10.5`, `>=2.8,<3.3`, `>=2.8 <3.3`, `2.10.*`, `*`,
 * alternatives with `||`) as PEP 440 clauses: `^2.10` is `>=2.10,<3.0`, `~3.2` is `>=3.2,<3.3`, a bare
 * version is `==`. Undefined when some part is not understood.
 */
export function parsePoetryConstraint(text: string): Constraint | undefined {
  const alternatives: Constraint = [];
  for (const alternative of text.split("||")) {
    const clauses: Clause[] = [];
    for (const token of poetryTokens(alternative)) {
      const translated = poetryClauses(token);
      if (!translated) return undefined;
      clauses.push(...translated);
    }
    alternatives.push(clauses);
  }
  return alternatives.length > 0 ? alternatives : undefined;
}

/**
 * The constraints of one alternative, without white space: separated by commas, or by white space
 * that does not stand before a version (`>=2.8 <3.3`, but `>= 2.8` is one constraint).
 */
function poetryTokens(alternative: string): string[] {
  const tokens: string[] = [];
  for (const part of alternative.split(",")) {
    let current = "";
    for (const word of part.split(/\s+/)) {
      if (word === "") continue;
      if (current !== "" && !/^[0-9*]/.test(word)) {
        tokens.push(current);
        current = "";
      }
      current += word;
    }
    if (current !== "") tokens.push(current);
  }
  return tokens;
}

function poetryClauses(token: string): Clause[] | undefined {
  if (token === "*") return [];
  const match = /^(\^|~(?!=)|~=|===|==|!=|<=|>=|<|>)?(.+)$/.exec(token);
  if (!match) return undefined;
  const [, operator, written] = match;
  if (operator === "^" || operator === "~") {
    const version = parseVersion(written);
    if (!version) return undefined;
    const upper = operator === "^" ? caretUpperBound(version.release) : tildeUpperBound(version.release);
    return [
      { operator: ">=", version: written, wildcard: false },
      { operator: "<", version: upper.join("."), wildcard: false },
    ];
  }
  const clause = clauseOf((operator as Operator | undefined) ?? "==", written);
  return clause ? [clause] : undefined;
}

/** `^1.2.3` → 2.0.0, `^0.2.3` → 0.3.0, `^0.0.3` → 0.0.4: the first non-zero component written is bumped. */
function caretUpperBound(release: number[]): number[] {
  let index = release.findIndex((part) => part !== 0);
  if (index === -1) index = release.length - 1;
  return [...release.slice(0, index), release[index] + 1];
}

/** `~1.2.3` → 1.3, `~1.2` → 1.3, `~1` → 2. */
function tildeUpperBound(release: number[]): number[] {
  return release.length === 1 ? [release[0] + 1] : [release[0], release[1] + 1];
}

/** The versions a clause admits at most: a release, and whether that release itself is admitted. */
interface UpperLimit {
  release: number[];
  inclusive: boolean;
}

function upperLimit(clause: Clause): UpperLimit | undefined {
  const version = parseVersion(clause.version);
  // A later epoch outranks every ordinary version: such a bound limits nothing we can compare.
  if (!version || version.epoch !== 0) return undefined;
  switch (clause.operator) {
    case "==":
      return clause.wildcard ? { release: bumpLast(version.release), inclusive: false } : { release: version.release, inclusive: true };
    case "===":
      return { release: version.release, inclusive: true };
    case "<":
      return { release: version.release, inclusive: false };
    case "<=":
      return { release: version.release, inclusive: true };
    case "~=":
      // `~=3.2.0` is `>=3.2.0, ==3.2.*`.
      return { release: bumpLast(version.release.slice(0, -1)), inclusive: false };
    default:
      return undefined;
  }
}

function bumpLast(release: number[]): number[] {
  return [...release.slice(0, -1), release[release.length - 1] + 1];
}

/** Whether every version the clause admits has a release segment below `release`. */
function clauseBelow(clause: Clause, release: readonly number[]): boolean {
  const limit = upperLimit(clause);
  if (!limit) return false;
  const order = compareReleases(limit.release, release);
  return limit.inclusive ? order < 0 : order <= 0;
}

/**
 * Whether the constraint caps the version at all: an exact version or an upper bound in every
 * alternative. A constraint with lower bounds only (`>=3.0`) says nothing about the version in use.
 */
export function isCapped(constraint: Constraint): boolean {
  return constraint.length > 0 && constraint.every((clauses) => clauses.some((clause) => upperLimit(clause) !== undefined));
}

/**
 * Whether every version the constraint admits is older than `release` (`[3, 3]`): some clause of each
 * alternative excludes it. Pre-releases of `release` count as `release` (3.3.0rc1 is not below 3.3).
 */
export function admitsOnlyBelow(constraint: Constraint, release: readonly number[]): boolean {
  return constraint.length > 0 && constraint.every((clauses) => clauses.some((clause) => clauseBelow(clause, release)));
}

/** The version of a constraint that is one exact version (`==2.10.5`, Poetry's `2.10.5`), else undefined. */
export function exactVersion(constraint: Constraint): string | undefined {
  if (constraint.length !== 1 || constraint[0].length !== 1) return undefined;
  const [clause] = constraint[0];
  return (clause.operator === "==" && !clause.wildcard) || clause.operator === "===" ? clause.version : undefined;
}
