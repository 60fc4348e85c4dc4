/**
 * Runs the TextMate grammar test cases in test/grammar/*.py with vscode-tmgrammar-test
 * (`npm run test:grammar`; test/grammar/grammar.test.ts runs it inside `npm test`).
 *
 * The injection grammars are read from package.json's contributes.grammars, as VS Code reads them.
 * What they inject into is VS Code's own Python grammar (MagicPython), so the cases also check that
 * an injection leaves the Python grammar's tokens around it intact. It comes from the `tm-grammars`
 * package, or from the files named in PYTHON_TMGRAMMAR (path-separated, e.g. a VS Code install's
 * extensions/python/syntaxes/MagicPython.tmLanguage.json).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../support/paths";

export const TEST_CASES = "test/grammar/*.py";
const PYTHON_GRAMMAR_PACKAGE = "tm-grammars";

export interface GrammarTestRun {
  status: number | null;
  output: string;
  /** The Python grammar files the injections were tested against. */
  baseGrammars: string[];
}

/** VS Code's Python grammar, and the regular-expression grammar it embeds when there is one. */
export function pythonGrammars(): string[] {
  const fromEnvironment = process.env.PYTHON_TMGRAMMAR;
  if (fromEnvironment) return fromEnvironment.split(path.delimiter).filter(Boolean);
  let python: string;
  try {
    python = require.resolve(`${PYTHON_GRAMMAR_PACKAGE}/grammars/python.json`, { paths: [repoRoot] });
  } catch {
    throw new Error(
      `The grammar tests need VS Code's Python grammar (MagicPython), which the npm package ${PYTHON_GRAMMAR_PACKAGE} ships ` +
        `as grammars/python.json: \`npm install --save-dev ${PYTHON_GRAMMAR_PACKAGE}\`, or set PYTHON_TMGRAMMAR to a copy of it.`,
    );
  }
  const regexp = path.join(path.dirname(python), "regexp.json");
  const embedsRegexp = fs.existsSync(regexp) && JSON.parse(fs.readFileSync(regexp, "utf8")).scopeName === "source.regexp.python";
  return embedsRegexp ? [python, regexp] : [python];
}

export function runGrammarTests(): GrammarTestRun {
  const baseGrammars = pythonGrammars();
  const tool = path.join(path.dirname(require.resolve("vscode-tmgrammar-test/package.json", { paths: [repoRoot] })), "dist", "unit.js");
  const args = [tool, "--config", "package.json", ...baseGrammars.flatMap((g) => ["-g", g]), TEST_CASES];
  const result = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}`, baseGrammars };
}

if (require.main === module) {
  try {
    const run = runGrammarTests();
    process.stdout.write(`Python grammar: ${run.baseGrammars.join(", ")}\n${run.output}`);
    process.exit(run.status === 0 ? 0 : 1);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
