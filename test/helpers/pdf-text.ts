import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Parses a PDF back and returns its text, one line per text run, to check what a document says. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const document = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false })
    .promise;
  const lines: string[] = [];
  for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
    const page = await document.getPage(pageNumber);
    const content = await page.getTextContent();
    for (const item of content.items) if ('str' in item) lines.push(item.str);
  }
  await document.destroy();
  return lines.join('\n');
}
