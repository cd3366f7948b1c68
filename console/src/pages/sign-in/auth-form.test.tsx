import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AuthForm } from './auth-form';
import { ApiError } from '../../api/client';

afterEach(cleanup);

describe('AuthForm', () => {
  it('shows problems beside the fields and does not submit a bad email or short password', async () => {
    const onSubmit = vi.fn(async () => undefined);
    render(<AuthForm mode="sign-up" onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText('Email'), 'not-an-email');
    await userEvent.type(screen.getByLabelText('Password'), 'short');
    await userEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Enter an email address like you@example.com.')).toBeTruthy();
    expect(screen.getByText('Use at least 10 characters.')).toBeTruthy();
  });

  it('submits trimmed fields and shows the server’s message when it refuses', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(401, 'Invalid email or password');
    });
    render(<AuthForm mode="sign-in" onSubmit={onSubmit} />);
    expect(screen.queryByLabelText('Name (optional)')).toBeNull();
    await userEvent.type(screen.getByLabelText('Email'), '  me@example.com ');
    await userEvent.type(screen.getByLabelText('Password'), 'plum-orbit-42-lantern');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(onSubmit).toHaveBeenCalledWith({ name: '', email: 'me@example.com', password: 'plum-orbit-42-lantern' });
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid email or password');
  });
});
