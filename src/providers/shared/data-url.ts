/** A `data:<media type>;base64,<data>` URL split into its parts; null for anything else. */
export interface InlineData {
  mediaType: string;
  data: string;
}

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*);base64,(.*)$/s;

export function parseDataUrl(url: string): InlineData | null {
  const match = DATA_URL.exec(url);
  if (!match) return null;
  return { mediaType: match[1].toLowerCase(), data: match[3] };
}

const EXTENSION_MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

/** The media type a URL's file extension suggests; providers that need one for remote files get it from here. */
export function mediaTypeFromUrl(url: string, fallback: string): string {
  const path = url.split(/[?#]/)[0];
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return EXTENSION_MEDIA_TYPES[extension] ?? fallback;
}
