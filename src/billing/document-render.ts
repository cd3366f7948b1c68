import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type PDFKit from 'pdfkit';
import { unitsToDecimal } from '../shared/decimal.js';
import { currencyExponent, type Seller } from './billing-config.js';
import { documentNumber, type DocumentType } from './document-repository.js';

export interface DocumentData {
  type: DocumentType;
  number: number;
  issuedAt: number;
  seller: Seller;
  buyer: { name: string; email: string };
  order: {
    id: string;
    currency: string;
    amountMinor: number;
    feeMinor: number;
    totalMinor: number;
    createdAt: number;
    paidAt: number | null;
    feeRatePpm: number;
    paymentProvider: string;
  };
}

// pdfkit's built-in fonts cannot draw names like "Łódź": embed DejaVu Sans.
const fontDirectory = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const REGULAR = join(fontDirectory, 'DejaVuSans.ttf');
const BOLD = join(fontDirectory, 'DejaVuSans-Bold.ttf');

export function formatMoney(minor: number, currency: string): string {
  const exponent = currencyExponent(currency);
  const text = unitsToDecimal(minor, exponent);
  const [whole, fraction = ''] = text.split('.');
  return `${exponent > 0 ? `${whole}.${fraction.padEnd(exponent, '0')}` : whole} ${currency.toUpperCase()}`;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** PDFKit and its font metrics, loaded with the first document (~13 MB a gateway that renders none never holds). */
let pdfkit: Promise<typeof PDFKit> | undefined;

/** An invoice or receipt as PDF bytes. Pure apart from reading the font files. */
export async function renderDocument(data: DocumentData): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= import('pdfkit').then((module) => module.default));
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `${data.type === 'invoice' ? 'Invoice' : 'Receipt'} ${documentNumber(data.type, data.number)}`,
      Author: data.seller.name,
    },
  });
  pdf.registerFont('regular', REGULAR);
  pdf.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });

  const { order } = data;
  const money = (minor: number) => formatMoney(minor, order.currency);
  pdf
    .font('bold')
    .fontSize(20)
    .text(data.type === 'invoice' ? 'Invoice' : 'Receipt');
  pdf.font('regular').fontSize(10).moveDown(0.5);
  pdf.text(`Number: ${documentNumber(data.type, data.number)}`);
  pdf.text(`Date of issue: ${day(data.issuedAt)}`);
  pdf.text(`Order: ${order.id}`);
  pdf.text(`Order date: ${day(order.createdAt)}`);
  if (order.paidAt !== null) pdf.text(`${data.type === 'receipt' ? 'Date paid' : 'Paid on'}: ${day(order.paidAt)}`);
  pdf.moveDown();

  // Parties one above the other, full width: long e-mail addresses must not wrap mid-address.
  pdf.font('bold').text('From', 56, pdf.y);
  pdf
    .font('regular')
    .text(
      [
        data.seller.name,
        ...data.seller.address,
        data.seller.email,
        data.seller.taxId ? `Tax ID: ${data.seller.taxId}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
      56,
      pdf.y,
      { width: 483 },
    );
  pdf.moveDown(0.7);
  pdf.font('bold').text('Bill to', 56, pdf.y);
  pdf.font('regular').text([data.buyer.name, data.buyer.email].filter(Boolean).join('\n'), 56, pdf.y, { width: 483 });
  pdf.y += 20;

  const feePercent = unitsToDecimal(order.feeRatePpm * 100, 6);
  const rows: Array<[string, string]> = [
    ['Prepaid API credits', money(order.amountMinor)],
    [`Platform fee (${feePercent}%)`, money(order.feeMinor)],
  ];
  pdf.font('bold').text('Description', 56, pdf.y, { continued: false });
  const headerY = pdf.y - pdf.currentLineHeight();
  pdf.text('Amount', 400, headerY, { width: 139, align: 'right' });
  pdf
    .moveTo(56, pdf.y + 2)
    .lineTo(539, pdf.y + 2)
    .stroke();
  pdf.moveDown(0.5);
  pdf.font('regular');
  for (const [label, amount] of rows) {
    const y = pdf.y;
    pdf.text(label, 56, y, { width: 330 });
    pdf.text(amount, 400, y, { width: 139, align: 'right' });
  }
  pdf
    .moveTo(56, pdf.y + 2)
    .lineTo(539, pdf.y + 2)
    .stroke();
  pdf.moveDown(0.5);
  const totalY = pdf.y;
  pdf.font('bold').text(data.type === 'receipt' ? 'Total paid' : 'Total', 56, totalY, { width: 330 });
  pdf.text(money(order.totalMinor), 400, totalY, { width: 139, align: 'right' });
  pdf.font('regular').moveDown(2);
  pdf.text(
    `Currency: ${order.currency.toUpperCase()}. Payment: ${order.paymentProvider === 'sandbox' ? 'sandbox (no money moved)' : 'card via Stripe'}.`,
    56,
    pdf.y,
    { width: 483 },
  );
  pdf.end();
  return done;
}
