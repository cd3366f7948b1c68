/**
 * Native pass-through: when the client speaks the endpoint's own API, the gateway forwards the
 * client's body with only the model (and its own fields) changed and streams the upstream's bytes
 * back as they are. An adapter says which client APIs its endpoints speak and how usage is read
 * from that API's answer, without parsing every event. Generic code never names a provider.
 */
export type { NativeApi, NativeRequest, NativeSupport, NativeUsageReader } from './provider-adapter.js';

/**
 * The length of the first JSON string value after one of the keys in a raw event payload, without
 * parsing it: the text a delta event adds, for the estimate of a stream cut before its usage.
 */
export function textLengthAfter(payload: string, keys: readonly string[]): number {
  for (const key of keys) {
    const at = payload.indexOf(key);
    if (at === -1) continue;
    let index = at + key.length;
    let length = 0;
    while (index < payload.length) {
      const code = payload.charCodeAt(index);
      if (code === 34 /* " */) return length;
      // An escape (\n, \", \uXXXX) is one character of text.
      if (code === 92 /* \ */) index += payload.charCodeAt(index + 1) === 117 /* u */ ? 6 : 2;
      else index++;
      length++;
    }
    return length;
  }
  return 0;
}
