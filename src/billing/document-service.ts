import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { NotFoundError, PermissionDeniedError } from '../shared/errors.js';
import type { BillingConfig } from './billing-config.js';
import { checkDocumentLink, signDocumentPath } from './document-links.js';
import { documentNumber, findDocument, getOrIssueDocument, type DocumentType } from './document-repository.js';
import { renderDocument } from './document-render.js';
import { findOrder, type OrderRow } from './order-repository.js';
import '../users/user-repository.js';

export interface DocumentServiceDeps {
  store: Store;
  config: BillingConfig;
  clock: Clock;
  ids: IdGenerator;
  publicUrl: string;
  /** Signs document links; the installation's secret. */
  secret: string;
}

/** Numbers documents, hands out signed links and renders the PDF when a link is opened. */
export class DocumentService {
  constructor(private readonly deps: DocumentServiceDeps) {}

  async link(order: OrderRow, type: DocumentType) {
    const { store, ids, clock, config, secret, publicUrl } = this.deps;
    const document = await getOrIssueDocument(store.db, ids, order.id, type, clock.now());
    const expiresAt = Math.floor((clock.now() + config.documentLinkTtlMs) / 1000);
    return {
      order_id: order.id,
      type,
      document_number: documentNumber(type, document.number),
      url: publicUrl + signDocumentPath(secret, document.id, expiresAt),
      expires_at: new Date(expiresAt * 1000).toISOString(),
    };
  }

  /** GET /api-account/billing/documents/{id}.pdf?expires&signature: the link is the credential. */
  register(app: FastifyInstance): void {
    app.get<{ Params: { file: string }; Querystring: { expires?: string; signature?: string } }>(
      '/api-account/billing/documents/:file',
      {
        schema: {
          summary: 'Download an invoice or receipt through its signed link',
          tags: ['billing'],
          security: [],
          querystring: {
            type: 'object',
            properties: {
              expires: {
                type: 'string',
                description: 'Unix seconds the link is valid until (part of the signed link)',
              },
              signature: { type: 'string', description: 'HMAC of the document id and expires' },
            },
          },
          response: {
            200: {
              description: 'The invoice or receipt',
              content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            },
            403: { $ref: 'ErrorEnvelope#' },
            404: { $ref: 'ErrorEnvelope#' },
          },
        },
      },
      async (request, reply) => {
        const id = request.params.file.replace(/\.pdf$/, '');
        const check = checkDocumentLink(
          this.deps.secret,
          id,
          request.query.expires,
          request.query.signature,
          this.deps.clock.now(),
        );
        if (check === 'expired')
          throw new PermissionDeniedError('This document link has expired; ask for a new one.', 'link_expired');
        if (check === 'invalid')
          throw new PermissionDeniedError('This document link is not valid.', 'invalid_signature');
        const document = await findDocument(this.deps.store.db, id);
        const order = document ? await findOrder(this.deps.store.db, document.order_id) : undefined;
        if (!document || !order) throw new NotFoundError('No such document.', 'document_not_found');
        const buyer = await this.deps.store.db
          .selectFrom('user')
          .select(['name', 'email'])
          .where('id', '=', order.user_id)
          .executeTakeFirst();
        const bytes = await renderDocument({
          type: document.type,
          number: document.number,
          issuedAt: document.created_at,
          seller: this.deps.config.seller,
          buyer: { name: buyer?.name ?? '', email: buyer?.email ?? '' },
          order: {
            id: order.id,
            currency: order.currency,
            amountMinor: order.amount_minor,
            feeMinor: order.fee_minor,
            totalMinor: order.total_minor,
            createdAt: order.created_at,
            paidAt: order.paid_at,
            feeRatePpm: order.fee_rate_ppm,
            paymentProvider: order.payment_provider,
          },
        });
        return reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${documentNumber(document.type, document.number)}.pdf"`)
          .header('cache-control', 'private, no-store')
          .send(bytes);
      },
    );
  }
}
