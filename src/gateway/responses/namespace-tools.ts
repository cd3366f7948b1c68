/**
 * Responses `namespace` tools (Codex groups each MCP server's tools in one) have no counterpart in
 * chat or the other protocols: their function tools are offered flat, under a name that carries
 * the namespace, and calls are given back split into `namespace` and `name` (Codex dispatches on
 * the pair; a call with a flat name is "unsupported").
 */
interface NamespacedName {
  namespace: string;
  name: string;
}

/** Flat names offered upstream → the namespace and name the client declared. */
export type NamespaceMap = Map<string, NamespacedName>;

/** `mcp__docs__` + `search` → `mcp__docs__search`; `crm` + `find` → `crm__find`. */
export function flatToolName(namespace: string, name: string): string {
  return namespace.endsWith('__') ? `${namespace}${name}` : `${namespace}__${name}`;
}

/** A call's name as the client declared it: split again when it is one of the flattened tools. */
export function restoreToolName(map: NamespaceMap | undefined, flat: string): { name: string; namespace?: string } {
  const declared = map?.get(flat);
  return declared ? { name: declared.name, namespace: declared.namespace } : { name: flat };
}
