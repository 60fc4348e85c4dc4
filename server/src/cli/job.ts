/**
 * What a run checks files with, as plain data a worker thread can be sent, and the per-file
 * settings built from it: each thread builds its own configuration reader (with the pins),
 * workspace index and git reader.
 */
import { allRules } from "../engine";
import { GitBaselines } from "../engine/project/git";
import { CacheLocation, LintCache } from "./cache";
import { ConfigurationOverrides, ProjectConfiguration } from "../engine/project";
import { CliOptions } from "./args";
import { CheckSettings } from "./check";
import { displayPath } from "./findings";
import { cliWorkspace } from "./workspace";

export interface CheckJob {
  cwd: string;
  /** The paths given on the command line (the standard input's file name for `-`): the workspace's module roots start there. */
  paths: string[];
  /** The command line's rule options, over each file's configuration. */
  overrides: ConfigurationOverrides;
  fixes: CheckSettings["fixes"];
  unsafeFixes: boolean;
  countFixed: boolean;
  /** `--format review`. */
  review: boolean;
  /** The content cache; absent with `--no-cache`. */
  cache?: CacheLocation;
}

/** The command line's options as overrides of the configuration files: flags win, `--isolated` reads no file. */
export function cliOverrides(options: CliOptions, cwd: string): ConfigurationOverrides {
  return {
    select: options.select,
    extendSelect: options.extendSelect,
    ignore: options.ignore,
    severities: options.severities,
    exclude: options.exclude,
    extendExclude: options.extendExclude,
    base: cwd,
    baseline: options.baseline,
    preference: options.isolated ? "editorOnly" : "editorFirst",
  };
}

export function checkJob(options: CliOptions, cwd: string, cache: CacheLocation | undefined): CheckJob {
  return {
    cwd,
    paths: options.stdinFilename !== undefined ? [options.stdinFilename] : options.paths,
    overrides: cliOverrides(options, cwd),
    fixes: options.fix ? "fix" : options.diff ? "diff" : "check",
    unsafeFixes: options.unsafeFixes,
    countFixed: options.showFixes,
    review: options.format === "review",
    cache,
  };
}

/** The configuration reader of one thread: it checks codes against the registry's rules. */
export function projectConfiguration(): ProjectConfiguration {
  return new ProjectConfiguration({ ruleCodes: allRules.map((rule) => rule.code) });
}

export function checkSettings(job: CheckJob, baselines: GitBaselines, warn: (message: string) => void): CheckSettings {
  return {
    configuration: projectConfiguration(),
    overrides: job.overrides,
    fixes: job.fixes,
    unsafeFixes: job.unsafeFixes,
    countFixed: job.countFixed,
    baselines,
    workspace: cliWorkspace(job.cwd, job.paths),
    reviewTitle: job.review ? (file) => displayPath(file, job.cwd) : undefined,
    shownPath: (file) => displayPath(file, job.cwd),
    // Fixes write files or are shown, and the review needs the model, not only the findings: neither reads nor fills the cache.
    cache: job.cache && job.fixes === "check" && !job.review ? new LintCache(job.cache, JSON.stringify([job.cwd, job.paths]), warn) : undefined,
  };
}
