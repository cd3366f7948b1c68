/**
 * The README's tour, read from README.md itself so that a test of it breaks when the text drifts:
 * the shell commands of each terminal, the scripts it asks to save, and the later shell blocks.
 */

export interface ReadmeTour {
  /** Lines every terminal runs first (the ports and the gateway's address). */
  everyTerminal: string;
  /** Commands by terminal number, as written (continuation lines kept). */
  terminals: Map<number, string>;
  /** Files the reader is asked to save, by name: `save this as \`tour.mjs\``. */
  files: Array<{ name: string; text: string }>;
  /** Shell blocks after the first, in order: they run in the last terminal. */
  laterCommands: string[];
}

interface Fence {
  language: string;
  text: string;
  /** The prose between the previous fence and this one. */
  before: string;
}

/** The text of one `## ` section, from its heading to the next one. */
function readmeSection(readme: string, headingStart: string): string {
  const start = readme.indexOf(`\n## ${headingStart}`);
  if (start < 0) throw new Error(`README.md has no section "## ${headingStart}"`);
  const end = readme.indexOf('\n## ', start + 4);
  return readme.slice(start, end < 0 ? undefined : end);
}

function fencesOf(section: string): Fence[] {
  const fences: Fence[] = [];
  const pattern = /```(\w*)\n([\s\S]*?)```/g;
  let last = 0;
  for (const match of section.matchAll(pattern)) {
    fences.push({ language: match[1], text: match[2], before: section.slice(last, match.index) });
    last = match.index! + match[0].length;
  }
  return fences;
}

/** Splits a shell block at its `# every terminal` and `# terminal N` comment lines. */
function splitTerminals(block: string): { everyTerminal: string; terminals: Map<number, string> } {
  const terminals = new Map<number, string>();
  let everyTerminal = '';
  let current: number | 'every' | null = null;
  for (const line of block.split('\n')) {
    const heading = /^# (every terminal|terminal (\d+))\b/.exec(line);
    if (heading) {
      current = heading[2] ? Number(heading[2]) : 'every';
      continue;
    }
    if (line.startsWith('#') || line.trim() === '' || current === null) continue;
    if (current === 'every') everyTerminal += `${line}\n`;
    else terminals.set(current, `${terminals.get(current) ?? ''}${line}\n`);
  }
  return { everyTerminal, terminals };
}

export function extractTour(readme: string): ReadmeTour {
  const fences = fencesOf(readmeSection(readme, 'A five-minute tour'));
  const [first, ...rest] = fences;
  if (!first || first.language !== 'sh') throw new Error('the tour does not start with a sh block');
  const { everyTerminal, terminals } = splitTerminals(first.text);
  const files: ReadmeTour['files'] = [];
  const laterCommands: string[] = [];
  for (const fence of rest) {
    if (fence.language === 'sh') {
      laterCommands.push(fence.text.replace(/^#.*\n/gm, ''));
      continue;
    }
    const name = /save this as `([\w.-]+)`/i.exec(fence.before)?.[1];
    if (!name) throw new Error(`a ${fence.language} block of the tour says under which name to save it`);
    files.push({ name, text: fence.text });
  }
  return { everyTerminal, terminals, files, laterCommands };
}

/** The first command of the README's "Two commands" block (`npm install && npm start …`). */
export function twoCommandsStart(readme: string): string {
  const [block] = fencesOf(readmeSection(readme, 'Two commands'));
  const line = block?.text.split('\n').find((candidate) => candidate.includes('npm start'));
  if (!line) throw new Error('the "Two commands" block has no npm start line');
  return line;
}
