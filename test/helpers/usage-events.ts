import type { TestGateway } from './test-gateway.js';

/** The usage events of the test user, after the metering writer flushed (polls until `count` are there). */
export async function usageEvents(gateway: TestGateway, count: number): Promise<Array<Record<string, any>>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    await gateway.gateway.metering!.flush();
    const events = await gateway.testStore.store.db
      .selectFrom('usage_events')
      .selectAll()
      .where('user_id', '=', gateway.userId)
      .orderBy('created_at')
      .execute();
    if (events.length >= count) return events as Array<Record<string, any>>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`fewer than ${count} usage events were written`);
}
