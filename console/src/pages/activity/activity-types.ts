import type { Answer } from '../../api/answers';

/** Shapes from the gateway's OpenAPI document (schema.d.ts, `npm run console:api`). */
export type ActivityPage = Exclude<Answer<'/api-account/user/activity', 'get'>, string>;
export type ActivityRow = ActivityPage['data'][number];
export type ActivityDetail = Answer<'/api-account/user/activity/{request_id}', 'get'>;
