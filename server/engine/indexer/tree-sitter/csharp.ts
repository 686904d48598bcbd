import type { LanguageSpec, RawImport } from './language';
import { resolvedTo, unresolved } from './language';
import { hasModifier } from './definitions';
import { ancestors, dirOf, joinRel, packageFile, type RepoFiles } from './repo-files';
import { startLineOf } from './source';

const definitions = `
(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum
(delegate_declaration name: (identifier) @name) @def.type
(method_declaration name: (identifier) @name) @def.function
(constructor_declaration name: (identifier) @name) @def.function
(property_declaration name: (identifier) @name) @def.property
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @def.property
`;

/**
 * Folders a namespace may live in below a root: `A.B.C` → A/B/C, A.B/C and A.B.C (projects are often
 * folders named after their root namespace).
 */
function namespaceFolders(root: string, segments: string[]): (string | null)[] {
  const out: (string | null)[] = [];
  for (let k = 1; k <= segments.length; k++) out.push(joinRel(root, segments.slice(0, k).join('.'), ...segments.slice(k)));
  return out;
}

function resolveNamespace(fromPath: string, specifier: string, files: RepoFiles): string | null {
  const segments = specifier.split('.');
  // Every folder above the importing file, and its src/ (tests/X.Tests using src/X is the usual layout).
  for (const root of ancestors(dirOf(fromPath)).flatMap((d) => [d, joinRel(d, 'src')])) {
    if (root === null) continue;
    const folders = namespaceFolders(root, segments);
    // `using static A.B.Type;` and `using X = A.B.Type;` name a type: A/B/Type.cs.
    const typeFile = files.firstFile(folders.map((f) => (f === null ? null : `${f}.cs`)));
    if (typeFile) return typeFile;
    for (const folder of folders) {
      if (!files.isDir(folder)) continue;
      const file = packageFile(folder, '.cs', files, /\.(g|Designer)\.cs$/);
      if (file) return file;
    }
  }
  return null;
}

export const csharp: LanguageSpec = {
  grammar: 'c-sharp',
  comments: '(comment) @comment',
  definitions,
  imports: '(using_directive) @import',
  importsOf(match): RawImport[] {
    const node = match.captures[0].node;
    const parsed = /^(?:global\s+)?using\s+(?:static\s+)?(?:([\w]+)\s*=\s*)?([\w.]+)\s*;$/.exec(node.text.replace(/\s+/g, ' ').trim());
    if (!parsed) return [];
    const [, alias, name] = parsed;
    return [{ specifier: name, kind: 'use', names: alias ? [alias] : ['*'], typeOnly: false, line: startLineOf(node) }];
  },
  refineKind: (node, kind) => (kind === 'property' && hasModifier(node, 'const') ? 'constant' : kind),
  isExported: (def) => hasModifier(def.node, 'public') || def.container?.node.type === 'interface_declaration',
  description: (root, source) => source.leadingDescription(root),
  describeByFirstType: true,
  resolve(fromPath, specifier, _kind, files) {
    // `using X = A.B.Type;` may name a type declared in a file of another name: then its namespace's folder.
    const parent = specifier.includes('.') ? specifier.slice(0, specifier.lastIndexOf('.')) : null;
    const target = resolveNamespace(fromPath, specifier, files) ?? (parent ? resolveNamespace(fromPath, parent, files) : null);
    return target ? resolvedTo(target) : unresolved(specifier);
  },
};
