import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';

/**
 * Renders the chart's templates with a small subset of Helm's template language, enough for this
 * chart and strict about the rest: an action it does not know fails the test instead of being
 * passed through. Supported: `.Values.x.y`, `.Release.Name`, `.Chart.Name`, `| quote`,
 * `toYaml X | nindent N`, `if X` / `if not X` / `end`, `range $k, $v := X`, and `{{-` / `-}}`
 * whitespace trimming. No container engine or helm binary is needed.
 */
export interface RenderedChart {
  /** Every Kubernetes object, by template file name. */
  objects: Array<{ file: string; object: Record<string, unknown> }>;
  values: Record<string, unknown>;
  chart: Record<string, unknown>;
}

type Scope = Record<string, unknown>;

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'output'; expression: string }
  | { kind: 'if'; expression: string; body: Node[] }
  | { kind: 'range'; keyName: string; valueName: string; expression: string; body: Node[] };

export function renderChart(chartDirectory: string, overrides: Record<string, unknown> = {}): RenderedChart {
  const chart = parse(readFileSync(join(chartDirectory, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
  const values = deepMerge(
    parse(readFileSync(join(chartDirectory, 'values.yaml'), 'utf8')) as Record<string, unknown>,
    overrides,
  );
  // Helm exposes Chart.yaml's fields capitalised (.Chart.Name, .Chart.AppVersion).
  const chartScope = Object.fromEntries(
    Object.entries(chart).map(([key, value]) => [key[0].toUpperCase() + key.slice(1), value]),
  );
  const root: Scope = { Values: values, Release: { Name: 'test-release' }, Chart: chartScope };
  const objects: RenderedChart['objects'] = [];
  const templates = join(chartDirectory, 'templates');
  for (const file of readdirSync(templates).sort()) {
    if (!file.endsWith('.yaml')) continue;
    const text = renderTemplate(readFileSync(join(templates, file), 'utf8'), root);
    for (const document of parseAllDocuments(text)) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}\n${text}`);
      const object = document.toJS() as Record<string, unknown> | null;
      if (object) objects.push({ file, object });
    }
  }
  return { objects, values, chart };
}

function renderTemplate(template: string, root: Scope): string {
  const nodes = parseNodes(tokenize(template));
  return evaluate(nodes, root, {});
}

function tokenize(template: string): Array<{ text?: string; action?: string }> {
  const tokens: Array<{ text?: string; action?: string }> = [];
  const pattern = /\{\{(-?)\s*(.*?)\s*(-?)\}\}/gs;
  let last = 0;
  let trimNext = false;
  for (const match of template.matchAll(pattern)) {
    let text = template.slice(last, match.index);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (match[1] === '-') text = text.replace(/\s+$/, '');
    tokens.push({ text });
    tokens.push({ action: match[2] });
    trimNext = match[3] === '-';
    last = match.index + match[0].length;
  }
  let rest = template.slice(last);
  if (trimNext) rest = rest.replace(/^\s+/, '');
  tokens.push({ text: rest });
  return tokens;
}

function parseNodes(tokens: Array<{ text?: string; action?: string }>): Node[] {
  const stack: Node[][] = [[]];
  const open: Array<Extract<Node, { body: Node[] }>> = [];
  for (const token of tokens) {
    const current = stack[stack.length - 1];
    if (token.text !== undefined) {
      current.push({ kind: 'text', text: token.text });
      continue;
    }
    const action = token.action!;
    let match: RegExpMatchArray | null;
    if ((match = action.match(/^if\s+(.+)$/))) {
      const node: Node = { kind: 'if', expression: match[1], body: [] };
      current.push(node);
      open.push(node);
      stack.push(node.body);
    } else if ((match = action.match(/^range\s+\$(\w+),\s*\$(\w+)\s*:=\s*(.+)$/))) {
      const node: Node = { kind: 'range', keyName: match[1], valueName: match[2], expression: match[3], body: [] };
      current.push(node);
      open.push(node);
      stack.push(node.body);
    } else if (action === 'end') {
      if (!open.pop()) throw new Error('unbalanced {{ end }}');
      stack.pop();
    } else {
      current.push({ kind: 'output', expression: action });
    }
  }
  if (open.length > 0) throw new Error('unclosed {{ if }} or {{ range }}');
  return stack[0];
}

function evaluate(nodes: Node[], root: Scope, variables: Scope): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'output') out += String(evaluateExpression(node.expression, root, variables));
    else if (node.kind === 'if') {
      if (truthy(evaluateExpression(node.expression, root, variables))) out += evaluate(node.body, root, variables);
    } else {
      const collection = evaluateExpression(node.expression, root, variables) as Record<string, unknown>;
      for (const key of Object.keys(collection ?? {}).sort())
        out += evaluate(node.body, root, { ...variables, [node.keyName]: key, [node.valueName]: collection[key] });
    }
  }
  return out;
}

function evaluateExpression(expression: string, root: Scope, variables: Scope): unknown {
  const [head, ...pipes] = expression.split('|').map((part) => part.trim());
  let value: unknown;
  let match: RegExpMatchArray | null;
  if ((match = head.match(/^not\s+(\S+)$/))) value = !truthy(lookup(match[1], root, variables));
  else if ((match = head.match(/^toYaml\s+(\S+)$/))) value = stringify(lookup(match[1], root, variables)).trimEnd();
  else if ((match = head.match(/^quote\s+(\S+)$/))) value = JSON.stringify(String(lookup(match[1], root, variables)));
  else value = lookup(head, root, variables);
  for (const pipe of pipes) {
    if (pipe === 'quote') value = JSON.stringify(String(value));
    else if ((match = pipe.match(/^nindent\s+(\d+)$/))) {
      const pad = ' '.repeat(Number(match[1]));
      value = `\n${String(value)
        .split('\n')
        .map((line) => (line ? pad + line : line))
        .join('\n')}`;
    } else throw new Error(`unsupported template function: ${pipe}`);
  }
  return value;
}

function lookup(path: string, root: Scope, variables: Scope): unknown {
  if (path.startsWith('$')) {
    if (!(path.slice(1) in variables)) throw new Error(`unknown variable ${path}`);
    return variables[path.slice(1)];
  }
  if (!path.startsWith('.')) throw new Error(`unsupported template action: ${path}`);
  let value: unknown = root;
  for (const part of path.slice(1).split('.')) {
    if (value === null || typeof value !== 'object' || !(part in value))
      throw new Error(`template reads ${path}, which the values do not define`);
    value = (value as Scope)[part];
  }
  return value;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

function deepMerge(base: Scope, overrides: Scope): Scope {
  const result: Scope = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const existing = result[key];
    result[key] =
      value && typeof value === 'object' && !Array.isArray(value) && existing && typeof existing === 'object'
        ? deepMerge(existing as Scope, value as Scope)
        : value;
  }
  return result;
}
