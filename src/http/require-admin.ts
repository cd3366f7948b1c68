import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { Store } from '../store/database.js';
import { getRole } from '../users/user-roles.js';
import { PermissionDeniedError } from '../shared/errors.js';

/**
 * The admin API's gate, after `requireUser`: the signed-in account must hold the `admin` role.
 * Read from the store on every request, so a revoked role takes effect at once.
 */
export function requireAdmin(store: Store): preValidationAsyncHookHandler {
  return async function authorizeAdmin(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (!request.user || (await getRole(store.db, request.user.id)) !== 'admin')
      throw new PermissionDeniedError('This route needs an account with the admin role.', 'admin_required');
  };
}
