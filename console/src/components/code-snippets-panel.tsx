import { Tabs } from 'radix-ui';
import { CopyButton } from './copy-button';
import { codeSnippets } from './code-snippets';

/** Copyable calls of a model (curl, TypeScript, Python), as tabs. */
export function CodeSnippetsPanel({ modelId, apiKey }: { modelId: string; apiKey?: string }) {
  const snippets = codeSnippets(location.origin, modelId, apiKey);
  return (
    <Tabs.Root defaultValue={snippets[0].id}>
      <Tabs.List className="tabs-list" aria-label="Code snippets">
        {snippets.map((snippet) => (
          <Tabs.Trigger key={snippet.id} value={snippet.id}>
            {snippet.label}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {snippets.map((snippet) => (
        <Tabs.Content key={snippet.id} value={snippet.id} className="snippet">
          {/* Focusable, so a keyboard user can scroll a long line sideways. */}
          <pre tabIndex={0}>
            <code>{snippet.code}</code>
          </pre>
          <CopyButton text={snippet.code} label={`Copy the ${snippet.label} snippet`} className="button small" />
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}
