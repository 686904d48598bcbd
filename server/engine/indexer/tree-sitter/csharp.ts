import type { Node } from '@vscode/tree-sitter-wasm';
import type { LanguageSpec, RawImport } from './language';
import { unresolved } from './language';
import { hasModifier } from './definitions';
import { ancestors, dirOf, joinRel, type RepoFiles } from './repo-files';
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

const SKIP = new Set(['bin', 'obj', 'node_modules', 'packages']);
const TYPE_KEYWORDS = new Set(['class', 'struct', 'interface', 'enum', 'record', 'delegate']);

/** Namespace → type name → files declaring it (a partial type may be declared in several). */
type Declarations = Map<string, Map<string, string[]>>;

const hasProject = (dir: string, files: RepoFiles) => files.list(dir).some((n) => n.endsWith('.csproj'));

/** The folder of the nearest .csproj above a file, or null (then the repository is one project). */
function projectDirOf(fromPath: string, files: RepoFiles): string | null {
  return ancestors(dirOf(fromPath)).find((d) => hasProject(d, files)) ?? null;
}

/** A project and the projects it references (`<ProjectReference Include="..\X\X.csproj" />`), transitively. */
function projectClosure(projectDir: string, files: RepoFiles): string[] {
  const out = [projectDir];
  for (let i = 0; i < out.length; i++) {
    for (const name of files.list(out[i]).filter((n) => n.endsWith('.csproj'))) {
      const text = files.read(joinRel(out[i], name) ?? '') ?? '';
      for (const ref of text.matchAll(/<ProjectReference\s+Include\s*=\s*"([^"]+)"/g)) {
        const target = joinRel(out[i], ref[1].replace(/\\/g, '/'));
        const dir = target === null ? null : dirOf(target);
        if (dir !== null && !out.includes(dir) && files.isFile(target)) out.push(dir);
      }
    }
  }
  return out;
}

/** Code with comments, strings and character literals blanked (lengths kept), enough to find declarations. */
function blankLiterals(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|@"(?:[^"]|"")*"|\$?"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) => m.replace(/[^\n]/g, ' '));
}

/** The top-level types a C# file declares, by namespace (block or file-scoped), from a light scan of its text. */
export function declarationsOf(text: string): [string, string][] {
  const out: [string, string][] = [];
  const code = blankLiterals(text);
  // Each open brace is a namespace body or something else; types count only directly in a namespace body.
  const stack: { namespace: string | null }[] = [];
  let fileNamespace = '';
  const current = () => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i].namespace !== null) return stack[i].namespace!;
    return fileNamespace;
  };
  const atNamespaceLevel = () => stack.length === 0 || stack[stack.length - 1].namespace !== null;
  let pendingNamespace: string | null = null;
  const token = /\bnamespace\s+([\w.]+)\s*([;{])?|\b(class|struct|interface|enum|record|delegate)\b|[{}]/g;
  for (let m = token.exec(code); m; m = token.exec(code)) {
    if (m[1]) {
      const name = current() ? `${current()}.${m[1]}` : m[1];
      if (m[2] === ';') fileNamespace = m[1];
      else if (m[2] === '{') stack.push({ namespace: name });
      else pendingNamespace = name;
    } else if (m[3] && TYPE_KEYWORDS.has(m[3])) {
      if (!atNamespaceLevel()) continue;
      // `class Name`, `record struct Name`, `delegate Ret Name(`: the identifier before `<`, `(`, `:`, `{`, `;` or `where`.
      const rest = /^(?:\s+(?:class|struct))?\s+([\s\S]*?)(?=[<({:;]|\bwhere\b)/.exec(code.slice(token.lastIndex));
      const words = rest?.[1].trim().split(/\s+/) ?? [];
      const name = words[words.length - 1];
      if (name && /^[A-Za-z_]\w*$/.test(name)) out.push([current(), name]);
    } else if (m[0] === '{') {
      stack.push({ namespace: pendingNamespace });
      pendingNamespace = null;
    } else if (m[0] === '}') stack.pop();
  }
  return out;
}

/** Every type declared in a project and the projects it references. */
function declarations(fromPath: string, files: RepoFiles): Declarations {
  const project = projectDirOf(fromPath, files);
  return files.memo(`csharp:${project ?? '<repository>'}`, () => {
    const map: Declarations = new Map();
    const dirs = project === null ? [''] : projectClosure(project, files);
    for (const dir of dirs) {
      // SDK-style projects compile every .cs file below their folder, except bin/, obj/ and nested projects.
      for (const file of files.filesBelow(dir, '.cs', SKIP, (d) => d !== dir && project !== null && hasProject(d, files))) {
        for (const [namespace, type] of declarationsOf(files.read(file) ?? '')) {
          let types = map.get(namespace);
          if (!types) map.set(namespace, (types = new Map()));
          const list = types.get(type) ?? [];
          if (!list.includes(file)) list.push(file);
          types.set(type, list);
        }
      }
    }
    return map;
  });
}

/** The namespaces a file declares (`namespace A.B`) with each enclosing one (`A`), innermost first. */
function ownNamespaces(root: Node): string[] {
  const out: string[] = [];
  for (const node of root.descendantsOfType(['namespace_declaration', 'file_scoped_namespace_declaration'])) {
    let name = node?.childForFieldName('name')?.text.replace(/\s+/g, '') ?? '';
    for (let up = node?.parent; up; up = up.parent) {
      if (up.type === 'namespace_declaration') name = `${up.childForFieldName('name')?.text.replace(/\s+/g, '')}.${name}`;
    }
    for (let n = name; n; n = n.includes('.') ? n.slice(0, n.lastIndexOf('.')) : '') if (!out.includes(n)) out.push(n);
  }
  return out.sort((a, b) => b.split('.').length - a.split('.').length).concat('');
}

/** Capitalised simple names the code uses as types or type receivers (not member names after a dot, not declared names). */
function usedNames(root: Node): Map<string, number> {
  const used = new Map<string, number>();
  for (const node of root.descendantsOfType('identifier')) {
    if (!node || !/^[A-Z]/.test(node.text) || used.has(node.text)) continue;
    const parent = node.parent;
    if (!parent) continue;
    if (parent.type === 'member_access_expression' && parent.childForFieldName('name')?.id === node.id) continue;
    if (parent.type === 'qualified_name' && parent.namedChildren[0]?.id !== node.id) continue;
    if (/declaration|declarator|parameter$/.test(parent.type) && parent.childForFieldName('name')?.id === node.id) continue;
    if (parent.type === 'using_directive' || parent.type === 'namespace_declaration' || parent.type === 'file_scoped_namespace_declaration') continue;
    used.set(node.text, startLineOf(node));
  }
  return used;
}

/**
 * C# name lookup across files: a simple name is looked up in the file's namespaces (innermost first, then
 * the global one), then in the namespaces of its `using` directives, among the types its project and the
 * projects it references declare. Each type found is a `reference` to the files declaring it.
 */
function references(root: Node, imports: RawImport[], fromPath: string, files: RepoFiles): RawImport[] {
  const decls = declarations(fromPath, files);
  const usings = imports.filter((i) => i.names[0] === '*').map((i) => i.specifier);
  const aliases = new Set(imports.filter((i) => i.names[0] !== '*').map((i) => i.names[0]));
  const out: RawImport[] = [];
  for (const [name, line] of usedNames(root)) {
    if (aliases.has(name)) continue;
    for (const namespace of [...ownNamespaces(root), ...usings]) {
      const declaring = decls.get(namespace)?.get(name);
      if (!declaring) continue;
      if (!declaring.every((f) => f === fromPath)) {
        out.push({ specifier: namespace ? `${namespace}.${name}` : name, kind: 'reference', names: [name], typeOnly: false, line });
      }
      break;
    }
  }
  return out;
}

/** The files declaring a type named by its full name (`A.B.Type`), other than the importing file. */
function typeFiles(fromPath: string, fullName: string, files: RepoFiles): string[] {
  const cut = fullName.lastIndexOf('.');
  const namespace = cut < 0 ? '' : fullName.slice(0, cut);
  return (declarations(fromPath, files).get(namespace)?.get(fullName.slice(cut + 1)) ?? []).filter((f) => f !== fromPath);
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
  references,
  resolve(fromPath, specifier, kind, files) {
    // A namespace `using` is no edge by itself: the types the file names from it are (`reference`).
    // `using static A.B.Type;` and `using X = A.B.Type;` name a type; a `reference` names one too.
    const targets = typeFiles(fromPath, specifier, files);
    if (targets.length) return { targetPath: targets[0], packageName: null, alsoTargets: targets.slice(1) };
    if (kind === 'use' && declarations(fromPath, files).has(specifier)) return unresolved(null);
    return unresolved(kind === 'reference' ? null : specifier);
  },
};
