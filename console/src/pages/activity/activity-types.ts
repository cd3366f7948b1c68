import type { paths } from '../../api/schema';

/** Shapes from the gateway's OpenAPI document (schema.d.ts, `npm run console:api`). */
export type ActivityPage = paths['/api-account/user/activity']['get']['responses'][200]['content']['application/json'];
export type ActivityRow = ActivityPage['data'][number];
export type ActivityDetail =
  paths['/api-account/user/activity/{request_id}']['get']['responses'][200]['content']['application/json'];
