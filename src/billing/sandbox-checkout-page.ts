/** The sandbox checkout page: plain HTML, no build step, posts with the browser's session cookie. */
import { contentSecurityPolicy, inlineSources } from '../shared/content-security-policy.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#1d2330;display:flex;justify-content:center;padding:4rem 1rem}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:2rem;max-width:26rem;width:100%}
h1{font-size:1.3rem;margin:0 0 .3rem}.note{color:#667;font-size:.9rem}table{width:100%;margin:1.2rem 0;border-collapse:collapse}
td{padding:.35rem 0}td:last-child{text-align:right}tr.total td{border-top:1px solid #ddd;font-weight:600}
button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:0;cursor:pointer;margin-right:.5rem}
.pay{background:#2f6fed;color:#fff}.cancel{background:#eceef2}#result{margin-top:1rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

/**
 * The checkout page's one script, static so the Content-Security-Policy allows it by its hash
 * (shared/content-security-policy.ts); what it needs of this checkout is read from the JSON block.
 */
const CHECKOUT_SCRIPT = `
const checkout = JSON.parse(document.getElementById('checkout-data').textContent);
document.querySelectorAll('button[data-action]').forEach((button) => button.addEventListener('click', async () => {
  const result = document.getElementById('result');
  result.textContent = 'Working…';
  const action = button.dataset.action;
  const response = await fetch('/api-account/billing/sandbox/' + encodeURIComponent(checkout.sessionId) + '/' + action, { method: 'POST', credentials: 'include' });
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    const link = document.createElement('a');
    link.href = checkout.signIn;
    link.textContent = 'Sign in to the console';
    result.replaceChildren('You are not signed in here. ', link, ', then come back to this page.');
    return;
  }
  result.textContent = response.ok ? 'Order ' + body.status + '.' : (body.error && body.error.message) || 'Something went wrong.';
  if (!response.ok) return;
  document.querySelectorAll('button').forEach((other) => other.remove());
  const returnTo = checkout.returnTo[action];
  if (returnTo) {
    const target = new URL(returnTo);
    target.searchParams.set('order_id', body.order_id);
    window.location.assign(target.toString());
  }
}));
`;

/** The policy of every sandbox page: its static style and the checkout's static script, by hash. */
export const SANDBOX_PAGE_POLICY = contentSecurityPolicy(
  inlineSources(`<style>${STYLE}</style><script>${CHECKOUT_SCRIPT}</script>`),
);

export function checkoutPage(view: {
  sessionId: string;
  status: string;
  amount: string;
  fee: string;
  total: string;
  /** Where to go after paying or canceling (same-origin only, checked by the route). */
  successUrl?: string;
  cancelUrl?: string;
}): string {
  const open = view.status === 'pending';
  const rows = `<table><tr><td>Credits</td><td>${escapeHtml(view.amount)}</td></tr><tr><td>Platform fee</td><td>${escapeHtml(view.fee)}</td></tr><tr class="total"><td>Total</td><td>${escapeHtml(view.total)}</td></tr></table>`;
  const signIn = `/sign-in?next=${encodeURIComponent(`/billing/sandbox/checkout/${view.sessionId}`)}`;
  // JSON inside a <script> block: "<" escaped so no value can close the element. Not executed.
  const data = JSON.stringify({
    sessionId: view.sessionId,
    signIn,
    returnTo: { confirm: view.successUrl ?? null, cancel: view.cancelUrl ?? null },
  }).replace(/</g, '\\u003c');
  const actions = open
    ? `<button class="pay" data-action="confirm">Pay ${escapeHtml(view.total)}</button><button class="cancel" data-action="cancel">Cancel</button><p id="result" role="status"></p>
<script type="application/json" id="checkout-data">${data}</script>
<script>${CHECKOUT_SCRIPT}</script>`
    : `<p>This order is <strong>${escapeHtml(view.status)}</strong>.</p>${view.successUrl ? `<p><a href="${escapeHtml(view.successUrl)}">Back</a></p>` : ''}`;
  return page(
    'Sandbox checkout',
    `<h1>Add credits</h1><p class="note">Sandbox payment: no money moves. <a href="${escapeHtml(signIn)}">Sign in to the console</a> in this browser first.</p>${rows}${actions}`,
  );
}
