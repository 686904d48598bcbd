import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { hasModifier } from './definitions';
import { ancestors, dirOf, joinRel } from './repo-files';
import { startLineOf } from './source';

const definitions = `
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.function
(constructor_declaration name: (identifier) @name) @def.function
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @def.property
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @def.constant
`;

const SOURCE_LAYOUTS = ['src/main/java', 'src/test/java', 'src'];

/** `java.util.List` → `java.util`: the package is what comes before the first capitalised segment. */
function packageOf(path: string): string {
  const segments = path.split('.');
  const type = segments.findIndex((s) => /^\p{Lu}/u.test(s));
  return type > 0 ? segments.slice(0, type).join('.') : path;
}

export const java: LanguageSpec = {
  grammar: 'java',
  comments: '[(line_comment) (block_comment)] @comment',
  definitions,
  imports: '(import_declaration) @import',
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const parsed = /^import\s+(static\s+)?([\w$.]+?)(\.\*)?\s*;?$/.exec(node.text.replace(/\s+/g, ' ').trim());
    if (!parsed) return [];
    const [, , path, wildcard] = parsed;
    return [{ specifier: path, kind: 'import', names: wildcard ? ['*'] : [path.slice(path.lastIndexOf('.') + 1)], typeOnly: false, line: startLineOf(node) }];
  },
  refineKind: (node, kind) => (kind === 'property' && hasModifier(node, 'static') && hasModifier(node, 'final') ? 'constant' : kind),
  isExported(def) {
    const owner = def.container?.node.type;
    return hasModifier(def.node, 'public') || owner === 'interface_declaration' || owner === 'annotation_type_declaration';
  },
  description: (root, source) => source.leadingDescription(root),
  describeByFirstType: true,
  resolve(fromPath, specifier, _kind, files) {
    // Source roots are not declared anywhere: every folder above the importing file is a candidate, with
    // the Maven/Gradle layouts below it (tests in src/test/java import src/main/java).
    // `a.b.C.m` (static) and `a.b.Outer.Inner` fall back to a/b/C.java.
    const segments = specifier.split('.');
    const roots = ancestors(dirOf(fromPath)).flatMap((d) => [d, ...SOURCE_LAYOUTS.map((l) => joinRel(d, l))]);
    for (const root of roots) {
      if (root === null) continue;
      for (let k = segments.length; k >= 1; k--) {
        if (!/^\p{Lu}/u.test(segments[k - 1])) continue;
        const candidate = joinRel(root, ...segments.slice(0, k - 1), `${segments[k - 1]}.java`);
        if (files.isFile(candidate)) return resolvedTo(candidate);
      }
    }
    return unresolved(packageOf(specifier));
  },
};
