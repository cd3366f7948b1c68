import { describe, expect, it } from 'vitest';
import { formatMoney, renderDocument } from './document-render.js';
import { pdfText } from '../../test/helpers/pdf-text.js';

describe('renderDocument', () => {
  it('draws the numbers, parties and totals, Unicode names included', async () => {
    const bytes = await renderDocument({
      type: 'invoice',
      number: 42,
      issuedAt: Date.UTC(2026, 10, 2),
      seller: {
        name: 'Gateway GmbH',
        address: ['Hauptstraße 1', '10115 Berlin'],
        email: 'billing@example.com',
        taxId: 'DE123',
      },
      buyer: { name: 'Zofia Łódź', email: 'zofia@example.com' },
      order: {
        id: 'ord_1',
        currency: 'usd',
        amountMinor: 2500,
        feeMinor: 125,
        totalMinor: 2625,
        createdAt: Date.UTC(2026, 10, 1),
        paidAt: Date.UTC(2026, 10, 1),
        feeRatePpm: 50_000,
        paymentProvider: 'sandbox',
      },
    });
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(bytes);
    for (const expected of [
      'Invoice',
      'INV-000042',
      'Gateway GmbH',
      'Zofia Łódź',
      '25.00 USD',
      '1.25 USD',
      '26.25 USD',
      'Platform fee (5%)',
      '2026-11-02',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('formats minor units per currency', () => {
    expect(formatMoney(5, 'usd')).toBe('0.05 USD');
    expect(formatMoney(1000, 'jpy')).toBe('1000 JPY');
    expect(formatMoney(123456, 'eur')).toBe('1234.56 EUR');
  });
});
