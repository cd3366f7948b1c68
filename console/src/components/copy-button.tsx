import { useState } from 'react';

/** Copies text to the clipboard and says so (to screen readers too). */
export function CopyButton({
  text,
  label = 'Copy',
  className = 'button',
}: {
  text: string;
  label?: string;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2500);
  };
  return (
    <button type="button" className={className} onClick={() => void copy()} aria-live="polite">
      {state === 'copied' ? 'Copied ✓' : state === 'failed' ? 'Copy failed: select and copy' : label}
    </button>
  );
}
