import { InvalidRequestError } from '../../shared/errors.js';
import type { ContentPart } from '../../shared/openai-types.js';
import type { BedrockContentBlock, BedrockDocumentFormat, BedrockImageFormat } from './bedrock-types.js';

const IMAGE_FORMATS: Record<string, BedrockImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const DOCUMENT_FORMATS: Record<string, BedrockDocumentFormat> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

/**
 * One OpenAI user content part → Converse blocks. Converse takes images and documents only as
 * bytes (or S3), and translation never fetches, so remote image URLs are refused with a 400.
 */
export function convertContentPart(part: ContentPart, param: string): BedrockContentBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'image_url': {
      const data = parseDataUrl(part.image_url.url);
      if (!data) {
        throw new InvalidRequestError(
          'Amazon Bedrock takes images as base64 data URLs (data:image/png;base64,…), not as links.',
          `${param}.image_url.url`,
          'unsupported_image_url',
        );
      }
      const format = IMAGE_FORMATS[data.mediaType];
      if (!format)
        throw new InvalidRequestError(
          `Image type ${data.mediaType} is not supported by Amazon Bedrock (png, jpeg, gif, webp).`,
          `${param}.image_url.url`,
        );
      return [{ image: { format, source: { bytes: data.base64 } } }];
    }
    case 'file': {
      const data = part.file.file_data ? parseDataUrl(part.file.file_data) : undefined;
      if (!data)
        throw new InvalidRequestError(
          'Amazon Bedrock takes files as base64 data URLs in file_data.',
          `${param}.file.file_data`,
        );
      const format = DOCUMENT_FORMATS[data.mediaType];
      if (!format)
        throw new InvalidRequestError(
          `File type ${data.mediaType} is not supported by Amazon Bedrock.`,
          `${param}.file.file_data`,
        );
      return [{ document: { format, name: documentName(part.file.filename), source: { bytes: data.base64 } } }];
    }
    case 'input_audio':
      throw new InvalidRequestError(
        'Audio input is not supported by Amazon Bedrock Converse.',
        `${param}.input_audio`,
        'unsupported_content',
      );
    default:
      throw new InvalidRequestError(
        `Unsupported content part type '${(part as { type?: string }).type}'.`,
        `${param}.type`,
      );
  }
}

function parseDataUrl(url: string): { mediaType: string; base64: string } | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1]!.toLowerCase(), base64: match[2]! };
}

/** Converse allows letters, digits, single spaces, hyphens, parentheses and brackets in document names. */
function documentName(filename: string | undefined): string {
  const base = (filename ?? 'document').replace(/\.[^.]*$/, '');
  const cleaned = base
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned || 'document';
}
