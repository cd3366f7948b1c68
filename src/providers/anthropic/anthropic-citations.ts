import type { AnthropicCitation } from './anthropic-types.js';

/** OpenAI's url_citation annotation, as web-search answers carry them. */
export interface UrlCitationAnnotation {
  type: 'url_citation';
  url_citation: { url: string; title: string; start_index: number; end_index: number };
}

/** Web-search citations of one text block, placed over the text the block added at `offset`. */
export function citationAnnotations(
  citations: AnthropicCitation[] | null | undefined,
  offset: number,
  length: number,
): UrlCitationAnnotation[] {
  if (!citations) return [];
  return citations
    .filter((citation) => citation.type === 'web_search_result_location' && typeof citation.url === 'string')
    .map((citation) => ({
      type: 'url_citation',
      url_citation: {
        url: citation.url as string,
        title: citation.title ?? '',
        start_index: offset,
        end_index: offset + length,
      },
    }));
}
