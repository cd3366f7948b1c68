import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { Logger } from 'pino';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { parseBillingConfig, type PaymentProviderChoice } from './billing-config.js';
import { NoPaymentProvider } from './no-payment-provider.js';
import type { PaymentProvider } from './payment-provider.js';
import { BillingService } from './billing-service.js';
import type { PurchaseLedger } from '../credits/purchase-ledger.js';
import { DocumentService } from './document-service.js';
import { SandboxPaymentProvider } from './sandbox-payment-provider.js';
import { createStripeClient, StripePaymentProvider, type StripeSettings } from './stripe-payment-provider.js';
import { registerStripeWebhook } from './stripe-webhook-route.js';
import { registerSandboxCheckout } from './sandbox-checkout-routes.js';

export interface BillingDeps {
  store: Store;
  ledger: PurchaseLedger;
  section: Record<string, unknown> | undefined;
  clock: Clock;
  ids: IdGenerator;
  publicUrl: string;
  logger: Logger;
  /** Signs document links. */
  secret: string;
  /** Stripe's settings when STRIPE_SECRET_KEY is set. */
  stripe?: StripeSettings;
  /** Who takes payments, from `choosePaymentProvider` (checked before anything was started). */
  paymentProvider: PaymentProviderChoice;
}

/**
 * Billing's services, and its routes outside the account API: the provider's callback (webhook or
 * sandbox page) and document downloads. The account endpoints are in accounts/billing/.
 */
export function registerBilling(
  app: FastifyInstance,
  deps: BillingDeps,
  signedIn: preHandlerAsyncHookHandler,
): { billing: BillingService; documents: DocumentService } {
  const config = parseBillingConfig(deps.section);
  const choice = deps.paymentProvider;
  const stripeProvider =
    choice === 'stripe' && deps.stripe
      ? new StripePaymentProvider(createStripeClient(deps.stripe), deps.store.db, deps.clock)
      : undefined;
  const provider: PaymentProvider =
    stripeProvider ??
    (choice === 'sandbox' ? new SandboxPaymentProvider(deps.publicUrl, deps.ids) : new NoPaymentProvider());
  const billing = new BillingService({
    store: deps.store,
    ledger: deps.ledger,
    provider,
    config,
    clock: deps.clock,
    ids: deps.ids,
    publicUrl: deps.publicUrl,
    logger: deps.logger,
  });
  const documents = new DocumentService({
    store: deps.store,
    config,
    clock: deps.clock,
    ids: deps.ids,
    publicUrl: deps.publicUrl,
    secret: deps.secret,
  });
  documents.register(app);
  if (stripeProvider && deps.stripe) {
    if (!deps.stripe.webhookSecret)
      deps.logger.warn(
        'STRIPE_WEBHOOK_SECRET is not set: Stripe webhooks will be refused, orders settle only when their status is read',
      );
    registerStripeWebhook(app, billing, stripeProvider, deps.stripe.webhookSecret);
  } else if (provider.name === 'sandbox') {
    deps.logger.warn(
      { paymentProvider: 'sandbox' },
      '*** SANDBOX PAYMENTS ARE ON (billing.payment_provider: sandbox): every user can add credits to their ' +
        'own account for free. For development and demos only; never on a gateway that sells credits. ***',
    );
    registerSandboxCheckout(app, billing, signedIn);
  } else {
    deps.logger.info('no payment provider: create-checkout answers 503 payments_not_configured');
  }
  deps.logger.info({ paymentProvider: provider.name }, 'billing ready');
  return { billing, documents };
}
