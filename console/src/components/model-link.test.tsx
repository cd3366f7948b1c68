import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { ModelLink } from './model-link';
import { FailuresTable } from './failures-table';
import { Money } from './money';

afterEach(cleanup);

describe('usage model ids and failures (issue 28)', () => {
  it('links a known model and leaves an unknown id such as nope/model as text', () => {
    const known = new Set(['mock/chat']);
    render(
      <MemoryRouter>
        <ModelLink id="mock/chat" known={known} />
        <ModelLink id="nope/model" known={known} />
        <FailuresTable
          failures={[{ status: 404, error_code: 'model_not_found', requests: 2, models: ['nope/model'] }]}
        />
      </MemoryRouter>,
    );
    expect(screen.getByRole('link', { name: 'mock/chat' }).getAttribute('href')).toBe('/models/mock/chat');
    expect(screen.queryByRole('link', { name: 'nope/model' })).toBeNull();
    expect(screen.getAllByText('nope/model')).toHaveLength(2);
    expect(screen.getByRole('cell', { name: 'model_not_found' })).toBeTruthy();
  });

  it('shows a balance cut to four decimals with the exact amount as a tooltip', () => {
    render(<Money amount={9.999818} />);
    const shown = screen.getByText('$9.9998');
    expect(shown.getAttribute('title')).toBe('Exactly $9.999818');
  });
});
