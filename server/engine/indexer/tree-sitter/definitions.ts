import type { Node, QueryMatch } from '@vscode/tree-sitter-wasm';
import type { ParsedSymbol, SymbolKind } from '../../types';
import type { Definition, LanguageSpec } from './language';
import { endLineOf, signatureOf, startLineOf, type SourceText } from './source';

const DEFAULT_MEMBER_CONTAINERS: ReadonlySet<string> = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'scope']);
const CALLABLE = new Set(['function', 'method']);
/** Captured kinds that own members; other captures (a typedef, a variable) are transparent to what they hold. */
const CONTAINERS = new Set(['class', 'struct', 'interface', 'trait', 'enum', 'module', 'scope']);

/**
 * Turns the matches of a language's definition patterns into symbols. Parents come from the tree (the
 * nearest enclosing captured definition) or from the syntax (`@parent`); namespaces are transparent (not
 * captured, or captured as a C++ `namespace` symbol that is no container); anything inside a function or method
 * is local and left out.
 */
export function collectSymbols(matches: QueryMatch[], spec: LanguageSpec, source: SourceText): ParsedSymbol[] {
  type Captured = Definition & { scopeOnly: boolean; pattern: number };
  // A node may define several names (`const a, b = 1, 2`, `int x, y;`): one entry per name, all from the
  // same pattern. When several patterns match a node, the first pattern in the query wins.
  const byNode = new Map<number, Captured[]>();
  for (const match of matches) {
    let defNode: Node | null = null;
    let kind = '';
    let nameNode: Node | null = null;
    let parentNode: Node | null = null;
    for (const capture of match.captures) {
      if (capture.name.startsWith('def.')) { defNode = capture.node; kind = capture.name.slice(4); }
      else if (capture.name === 'name') nameNode = capture.node;
      else if (capture.name === 'parent') parentNode = capture.node;
    }
    if (!defNode) continue;
    const earlier = byNode.get(defNode.id);
    if (earlier && earlier[0].pattern < match.patternIndex) continue;
    const named = nameNode
      ? [{ name: nameNode.text, parent: parentNode?.text, kind: undefined }]
      : [spec.nameOf?.(defNode, kind as SymbolKind) ?? []].flat();
    const defs: Captured[] = earlier && earlier[0].pattern === match.patternIndex ? earlier : [];
    for (const n of named) {
      if (!n.name || defs.some((d) => d.name === n.name)) continue;
      let refined: SymbolKind | null = (n.kind ?? kind) as SymbolKind;
      if (spec.refineKind) refined = spec.refineKind(defNode, refined, n.name);
      if (refined === null) continue;
      defs.push({
        node: defNode, kind: refined, name: n.name, container: null, explicitParent: n.parent ?? parentNode?.text ?? null,
        scopeOnly: refined === ('scope' as SymbolKind), pattern: match.patternIndex,
      });
    }
    if (defs.length) byNode.set(defNode.id, defs);
  }
  // Enclosing definitions first (earlier start, then larger end), so a local container makes its members local.
  const ordered = [...byNode.values()].flat().sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);

  const members = spec.memberContainers ?? DEFAULT_MEMBER_CONTAINERS;
  const symbols: { symbol: ParsedSymbol; start: number }[] = [];
  const locals = new Set<Definition>();
  for (const def of ordered) {
    for (let up = def.node.parent; up; up = up.parent) {
      const enclosing = byNode.get(up.id)?.[0];
      if (!enclosing) continue;
      if (CALLABLE.has(enclosing.kind) || locals.has(enclosing)) { locals.add(def); break; }
      if (CONTAINERS.has(enclosing.kind)) { def.container = enclosing; break; }
    }
    if (locals.has(def) || def.scopeOnly) continue;
    let kind: SymbolKind = def.kind;
    if (kind === 'function' && ((def.container && members.has(def.container.kind)) || def.explicitParent)) kind = 'method';
    def.kind = kind;
    const range = spec.rangeOf?.(def.node) ?? { first: def.node, last: def.node };
    source.definitionRows.add(range.first.startPosition.row);
    symbols.push({
      start: range.first.startIndex,
      symbol: {
        name: def.name,
        kind,
        parent: def.explicitParent ?? def.container?.name ?? null,
        startLine: startLineOf(range.first),
        endLine: endLineOf(range.last),
        exported: spec.isExported(def, source),
        signature: signatureOf(spec.signatureNodeOf?.(def.node) ?? def.node),
        doc: spec.innerDoc?.(def.node) ?? source.leadingComment(range.first),
      },
    });
  }
  return symbols.sort((a, b) => a.start - b.start).map((s) => s.symbol);
}

/** True when one of the node's direct children (or its `modifiers` list) is the given keyword. */
export function hasModifier(node: Node, keyword: string): boolean {
  for (const child of node.children) {
    if (!child) continue;
    if (child.text === keyword && (child.type === keyword || child.type.includes('modifier') || child.type.includes('specifier'))) return true;
    if ((child.type === 'modifiers' || child.type === 'modifier') && child.text.split(/\s+/).includes(keyword)) return true;
  }
  return false;
}

