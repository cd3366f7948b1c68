import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { KeyForm } from './key-form';
import { EMPTY_KEY_FORM, formToKeyBody, keyToForm, type ApiKey, type CreateKeyBody } from './key-form-values';

afterEach(cleanup);

const templates = [{ id: 'fast', name: 'Fast and cheap', description: '' }];

function renderForm(onSubmit = vi.fn(async (_body: CreateKeyBody) => undefined)) {
  render(
    <KeyForm
      initial={EMPTY_KEY_FORM}
      templates={templates}
      modelIds={['mock/chat', 'openai/gpt-4o-mini']}
      submitLabel="Create key"
      onSubmit={onSubmit}
      onCancel={() => undefined}
      today="2026-11-23"
    />,
  );
  return onSubmit;
}

describe('KeyForm', () => {
  it('sends every field of the key, default models in the order chosen', async () => {
    const onSubmit = renderForm();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name'), 'production');
    await user.type(screen.getByLabelText('Description (optional)'), 'the web app');
    await user.selectOptions(screen.getByLabelText('Routing mode'), 'manual');
    await user.type(screen.getByLabelText('Allowed models'), 'mock/chat, openai/*');
    await user.type(screen.getByLabelText('Model to add'), 'mock/chat');
    await user.click(screen.getByRole('button', { name: 'Add model' }));
    await user.type(screen.getByLabelText('Model to add'), 'openai/gpt-4o-mini{Enter}');
    await user.click(screen.getByRole('button', { name: 'Move openai/gpt-4o-mini up' }));
    await user.type(screen.getByLabelText('Requests per minute'), '60');
    await user.type(screen.getByLabelText('Tokens per minute'), '100000');
    await user.type(screen.getByLabelText('Monthly quota (USD)'), '50');
    await user.type(screen.getByLabelText('Credit limit (USD)'), '200.5');
    await user.type(screen.getByLabelText('Expires on'), '2027-01-31');
    await user.click(screen.getByLabelText('Always include the cost (usage.cost) in answers'));
    await user.click(screen.getByLabelText('Keep request and answer bodies'));
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'production',
      description: 'the web app',
      routing_mode: 'manual',
      allowed_models: ['mock/chat', 'openai/*'],
      rpm_limit: 60,
      tpm_limit: 100000,
      monthly_quota: 50,
      credit_limit: 200.5,
      expiration: '2027-01-31T23:59:59Z',
      template_id: null,
      include_cost: true,
      default_models: [
        { model_id: 'openai/gpt-4o-mini', priority: 1 },
        { model_id: 'mock/chat', priority: 2 },
      ],
      log_content: true,
    });
  });

  it('names each bad field and sends nothing', async () => {
    const onSubmit = renderForm();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Requests per minute'), '1.5');
    await user.type(screen.getByLabelText('Monthly quota (USD)'), 'lots');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByText('Give the key a name.')).toBeTruthy();
    expect(screen.getByText('A whole number of requests per minute, 1 or more.')).toBeTruthy();
    expect(screen.getByText('An amount in USD, like 50 or 12.50.')).toBeTruthy();
    expect(screen.getByLabelText('Requests per minute').getAttribute('aria-invalid')).toBe('true');
  });

  it('with a template, leaves the default models to it', async () => {
    const onSubmit = renderForm();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name'), 'templated');
    await user.selectOptions(screen.getByLabelText('Routing template'), 'fast');
    expect(screen.queryByLabelText('Model to add')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ template_id: 'fast' }));
    expect(onSubmit.mock.calls[0][0]).not.toHaveProperty('default_models');
  });

  it('shows the gateway’s refusal in the form', async () => {
    renderForm(vi.fn(async () => Promise.reject(new Error('allowed_models: unknown model "x/y"'))));
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Name'), 'k');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect((await screen.findByRole('alert')).textContent).toBe('allowed_models: unknown model "x/y"');
  });
});

describe('key form values', () => {
  it('refuses an expiration in the past and manual routing without models', () => {
    const result = formToKeyBody(
      { ...EMPTY_KEY_FORM, name: 'k', expiresOn: '2026-11-22', routingMode: 'manual' },
      '2026-11-23',
    );
    expect(result.problems).toEqual({
      expiresOn: 'Pick today or a later date.',
      defaultModels: 'Manual routing needs at least one default model (or a template).',
    });
  });

  it('round-trips an existing key into the form', () => {
    const key = {
      key_id: 'key_1',
      name: 'prod',
      description: '',
      masked_key: 'sk-gw-ab…cd',
      status: 'active',
      disabled: false,
      routing_mode: 'code',
      allowed_models: ['a/*'],
      template_id: null,
      default_models: [
        { model_id: 'b', priority: 2 },
        { model_id: 'a', priority: 1 },
      ],
      rpm_limit: 10,
      tpm_limit: null,
      monthly_quota: 5,
      credit_limit: null,
      include_cost: true,
      spend_this_month: 0,
      spend_total: 0,
      created_at: '2026-11-01T00:00:00Z',
      updated_at: '2026-11-01T00:00:00Z',
      last_used_at: null,
      expiration: '2027-01-31T23:59:59.000Z',
      previous_key_expiration: null,
      log_content: true,
    } satisfies ApiKey;
    expect(keyToForm(key)).toMatchObject({
      allowedModels: 'a/*',
      rpmLimit: '10',
      tpmLimit: '',
      monthlyQuota: '5',
      expiresOn: '2027-01-31',
      defaultModels: ['a', 'b'],
      includeCost: true,
      logContent: true,
    });
  });
});
