/**
 * The one error for a configuration the gateway cannot run on, from the file, the environment or
 * a feature's section. Each problem names the field (a dotted path such as `server.port`, or an
 * environment variable), what is wrong with it and, when it came from the file, the file and line:
 * `server.port must be integer (gateway.config.yaml, line 3)`.
 */
export interface ConfigProblem {
  /** `routing.templates[0].id`, `PORT`; null when the problem is the file itself (broken YAML). */
  field: string | null;
  /** Reads after the field: `must be integer`, `is not a known setting`. */
  problem: string;
  file?: string;
  line?: number;
}

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: ConfigProblem | readonly ConfigProblem[]) {
    const list = Array.isArray(problems) ? (problems as readonly ConfigProblem[]) : [problems as ConfigProblem];
    super(
      list.length === 1
        ? formatConfigProblem(list[0])
        : `Invalid configuration:\n  ${list.map(formatConfigProblem).join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.problems = list;
  }

  /** The first problem's field, file and line (most errors have one problem). */
  get field(): string | null {
    return this.problems[0]?.field ?? null;
  }
  get file(): string | undefined {
    return this.problems[0]?.file;
  }
  get line(): number | undefined {
    return this.problems[0]?.line;
  }
}

function formatConfigProblem({ field, problem, file, line }: ConfigProblem): string {
  const where = file ? ` (${file}${line ? `, line ${line}` : ''})` : '';
  return `${field ? `${field} ` : ''}${problem}${where}`;
}
