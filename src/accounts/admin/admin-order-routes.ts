import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import { listUserOrders } from '../../billing/order-repository.js';
import { orderView } from '../../billing/order-view.js';
import { NotFoundError } from '../../shared/errors.js';
import { findUserSummary } from '../../users/user-directory.js';
import { OrderPageSchema, OrdersQuerySchema } from '../billing/billing-schemas.js';
import { UserIdParamsSchema } from './admin-schemas.js';

const errors = {
  400: { $ref: 'ErrorEnvelope#' },
  401: { $ref: 'ErrorEnvelope#' },
  403: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
};

/**
 * Any account's orders, for administrators: the refund action (POST /admin/orders/{id}/refund)
 * needs the order's id, and this is where an administrator finds it. Same page as the user's own.
 */
export function registerAdminOrderRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get<{ Params: Static<typeof UserIdParamsSchema>; Querystring: Static<typeof OrdersQuerySchema> }>(
    '/admin/users/:user_id/orders',
    {
      schema: {
        summary: "Any account's orders, newest first",
        tags: ['admin'],
        params: UserIdParamsSchema,
        querystring: OrdersQuerySchema,
        response: { 200: OrderPageSchema, ...errors },
      },
    },
    async (request) => {
      const user = await findUserSummary(deps.store.db, request.params.user_id);
      if (!user)
        throw new NotFoundError(`No account with the id ${request.params.user_id}.`, 'user_not_found', 'user_id');
      const { limit = 20, offset = 0 } = request.query;
      const { rows, total } = await listUserOrders(deps.store.db, user.id, limit, offset);
      return { data: rows.map(orderView), total, limit, offset };
    },
  );
}
