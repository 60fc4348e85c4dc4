/**
 * What a run checks files with, as plain data a worker thread can be sent, and the per-file
 * settings built from it: each thread builds its own workspace index, pin resolver and git reader.
 */
import { LintOptions } from "../engine";
import { GitBaselines } from "../engine/project/git";
import { CacheLocation, LintCache } from "./cache";
import { AirflowVersionResolver, diskProjectFiles } from "../engine/project";
import { CliOptions } from "./args";
import { CheckSettings } from "./check";
import { displayPath } from "./findings";
import { cliWorkspace } from "./workspace";

export interface CheckJob {
  cwd: string;
  /** The paths given on the command line: the workspace's module roots start there. */
  paths: string[];
  lint: Pick<LintOptions, "severities" | "select" | "ignore">;
  fix: boolean;
  baseline: string;
  /** `--format review`. */
  review: boolean;
  /** The content cache; absent with `--no-cache`. */
  cache?: CacheLocation;
}

export function checkJob(options: CliOptions, cwd: string, cache: CacheLocation | undefined): CheckJob {
  return {
    cwd,
    paths: options.paths,
    lint: { severities: options.severities, select: options.select, ignore: options.ignore },
    fix: options.fix,
    baseline: options.baseline,
    review: options.format === "review",
    cache,
  };
}

export function checkSettings(job: CheckJob, baselines: GitBaselines, warn: (message: string) => void): CheckSettings {
  return {
    lint: job.lint,
    fix: job.fix,
    baseline: job.baseline,
    baselines,
    workspace: cliWorkspace(job.cwd, job.paths),
    pins: new AirflowVersionResolver(diskProjectFiles),
    reviewTitle: job.review ? (file) => displayPath(file, job.cwd) : undefined,
    // `--fix` writes files and the review needs the model, not only the findings: neither reads nor fills the cache.
    cache: job.cache && !job.fix && !job.review ? new LintCache(job.cache, job.lint, JSON.stringify([job.cwd, job.paths]), warn) : undefined,
  };
}
