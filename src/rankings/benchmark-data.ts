import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_DIRECTORY } from '../catalog/load-catalog-data.js';

interface BenchmarkDefinition {
  id: string;
  name: string;
  category: string;
  unit: string;
  description: string;
}

interface BenchmarkScore {
  model_id: string;
  benchmark: string;
  score: number;
  /** Where the score was published, and when: every score carries both. */
  source: string;
  date: string;
}

export interface BenchmarkData {
  benchmarks: BenchmarkDefinition[];
  scores: BenchmarkScore[];
}

/** Reads catalog/benchmarks.json and refuses a score without its benchmark, source or date. */
export function loadBenchmarkData(path = join(CATALOG_DIRECTORY, 'benchmarks.json')): BenchmarkData {
  const data = JSON.parse(readFileSync(path, 'utf8')) as BenchmarkData;
  const known = new Set(data.benchmarks.map((benchmark) => benchmark.id));
  for (const score of data.scores) {
    if (!known.has(score.benchmark))
      throw new Error(`${path}: score for ${score.model_id} names unknown benchmark ${score.benchmark}`);
    if (!/^https?:\/\//.test(score.source) || !/^\d{4}-\d{2}-\d{2}$/.test(score.date))
      throw new Error(
        `${path}: score for ${score.model_id} on ${score.benchmark} needs a source URL and a YYYY-MM-DD date`,
      );
  }
  return data;
}
