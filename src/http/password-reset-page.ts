import type { FastifyInstance } from 'fastify';
import { contentSecurityPolicy, inlineSources } from '../shared/content-security-policy.js';
import { setPageSecurityHeaders } from './page-security-headers.js';

/**
 * The page a password-reset mail links to (`/reset-password?token=…`): plain HTML, no build step,
 * so a local install without the console can reset too. It posts the token and the new password to
 * POST /api-account/password-reset/confirm and shows the answer.
 */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Reset your password</title>
<style>body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#1d2330;display:flex;justify-content:center;padding:4rem 1rem}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:2rem;max-width:26rem;width:100%}h1{font-size:1.3rem;margin:0 0 1rem}
label{display:block;margin:.8rem 0 .3rem}input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #ccd;border-radius:6px}
button{font:inherit;margin-top:1.2rem;padding:.6rem 1.2rem;border-radius:8px;border:0;background:#2f6fed;color:#fff;cursor:pointer}#result{margin-top:1rem}</style></head>
<body><main><h1>Choose a new password</h1><form id="reset"><label for="password">New password (at least 10 characters)</label>
<input id="password" type="password" autocomplete="new-password" required minlength="10" maxlength="256">
<label for="again">Once more</label><input id="again" type="password" autocomplete="new-password" required>
<button type="submit">Set the password</button></form><p id="result" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get('token') || '';
const result = document.getElementById('result');
if (!token) result.textContent = 'This link has no token: open the link from the email again.';
document.getElementById('reset').addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = document.getElementById('password').value;
  if (password !== document.getElementById('again').value) { result.textContent = 'The two passwords differ.'; return; }
  result.textContent = 'Working…';
  const response = await fetch('/api-account/password-reset/confirm', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, new_password: password }),
  });
  const answer = await response.json().catch(() => null);
  result.textContent = response.ok
    ? 'Your password is set. Sign in with it; every other session was signed out.'
    : (answer && answer.error && answer.error.message) || 'Something went wrong: try again.';
  if (response.ok) document.getElementById('reset').remove();
});
</script></main></body></html>`;

/** The page is static: its one script and one style are allowed by their hashes. */
const POLICY = contentSecurityPolicy(inlineSources(PAGE));

export function registerPasswordResetPage(app: FastifyInstance): void {
  app.get('/reset-password', { schema: { hide: true } }, async (_request, reply) =>
    setPageSecurityHeaders(reply, POLICY)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send(PAGE),
  );
}
