import ts from 'typescript';
import { COMPONENT_FILE, componentParts } from '../indexer/parse-component';
import { kebabCase } from '../util/text';

export type UsageKind = 'call' | 'new' | 'read' | 'write' | 'type' | 'reexport';

/** One place where a file uses something it imported from a module of interest. */
export interface Usage {
  /** The module specifier as written in the importing file. */
  specifier: string;
  /** The exported name used: `foo`, `default`, or `*` for the module object itself. */
  importedName: string;
  line: number;
  kind: UsageKind;
  /** The function, method or class the use sits in (`Class.method`), or null at module level. */
  enclosing: string | null;
  /**
   * For an import used as `x.name`: `name` (a default-exported object's member, a static, or a member of a
   * namespace a barrel exports under a name).
   */
  member?: string;
  /** How `x.name` is used, for a named import (`kind` is how `x` itself is). */
  memberKind?: UsageKind;
  /** For a re-export under another name (`export { a as b } from`, `export * as b from`): `b`. */
  exportedAs?: string;
}

const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;

/**
 * Finds where a file uses the bindings it imports from `specifiers` (ES imports, `import x =
 * require()`, CommonJS `require`, `ns.member` on namespace imports). Syntax only: a local variable
 * that shadows an imported name is not told apart, which is rare in module code.
 */
export function findUsages(relPath: string, text: string, specifiers: Set<string>, bound?: Map<string, { specifier: string; importedName: string }>): Usage[] {
  if (COMPONENT_FILE.test(relPath) && specifiers.size > 0) return componentUsages(relPath, text, specifiers);
  if (!SCRIPT.test(relPath) || specifiers.size === 0) return [];
  const kind = /\.tsx$/i.test(relPath) ? ts.ScriptKind.TSX : /\.(jsx)$/i.test(relPath) ? ts.ScriptKind.JSX
    : /\.(js|mjs|cjs)$/i.test(relPath) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(relPath, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const bindings = new Map<string, { specifier: string; importedName: string }>();
  const declarationNames = new Set<ts.Node>();
  const usages: Usage[] = [];

  const bind = (name: ts.Identifier, specifier: string, importedName: string) => {
    bindings.set(name.text, { specifier, importedName });
    declarationNames.add(name);
  };

  const collect = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && specifiers.has(node.moduleSpecifier.text)) {
      const spec = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (clause?.name) bind(clause.name, spec, 'default');
      const named = clause?.namedBindings;
      if (named && ts.isNamespaceImport(named)) bind(named.name, spec, '*');
      if (named && ts.isNamedImports(named)) for (const el of named.elements) bind(el.name, spec, (el.propertyName ?? el.name).text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)
      && ts.isStringLiteral(node.moduleReference.expression) && specifiers.has(node.moduleReference.expression.text)) {
      bind(node.name, node.moduleReference.expression.text, '*');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) && specifiers.has(node.moduleSpecifier.text)) {
      const spec = node.moduleSpecifier.text;
      const clause = node.exportClause;
      const names: { name: string; as?: string }[] = clause && ts.isNamedExports(clause)
        ? clause.elements.map((el) => (el.propertyName ? { name: el.propertyName.text, as: el.name.text } : { name: el.name.text }))
        : [clause ? { name: '*', as: clause.name.text } : { name: '*' }];
      for (const { name, as } of names) {
        const usage: Usage = { specifier: spec, importedName: name, line: lineOf(node), kind: 'reexport', enclosing: null };
        if (as !== undefined && as !== name) usage.exportedAs = as;
        usages.push(usage);
      }
    } else if (isRequireOf(node, specifiers)) {
      const spec = ((node as ts.CallExpression).arguments[0] as ts.StringLiteralLike).text;
      const parent = node.parent;
      if (ts.isVariableDeclaration(parent) && parent.initializer === node) {
        if (ts.isIdentifier(parent.name)) bind(parent.name, spec, '*');
        else if (ts.isObjectBindingPattern(parent.name)) {
          for (const el of parent.name.elements) {
            if (!ts.isIdentifier(el.name)) continue;
            const imported = el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : el.name.text;
            bind(el.name, spec, imported);
          }
        }
      } else if (ts.isPropertyAccessExpression(parent) && parent.expression === node) {
        usages.push({ specifier: spec, importedName: parent.name.text, line: lineOf(parent), kind: usageKind(parent), enclosing: enclosingName(parent) });
      } else {
        usages.push({ specifier: spec, importedName: '*', line: lineOf(node), kind: usageKind(node), enclosing: enclosingName(node) });
      }
    }
    ts.forEachChild(node, collect);
  };
  collect(sf);
  if (bindings.size === 0) return usages;

  const visit = (node: ts.Node): void => {
    // `import * as z from './external'; export { z }` (zod's index.ts): the file re-exports what it imported.
    if (ts.isExportDeclaration(node) && !node.moduleSpecifier && node.exportClause && ts.isNamedExports(node.exportClause)) {
      for (const el of node.exportClause.elements) {
        const binding = bindings.get((el.propertyName ?? el.name).text);
        if (!binding) continue;
        const usage: Usage = { specifier: binding.specifier, importedName: binding.importedName, line: lineOf(node), kind: 'reexport', enclosing: null };
        if (el.name.text !== binding.importedName) usage.exportedAs = el.name.text;
        usages.push(usage);
      }
    }
    if (ts.isIdentifier(node) && !declarationNames.has(node) && bindings.has(node.text) && isReference(node)) {
      const binding = bindings.get(node.text)!;
      let site: ts.Node = node;
      let importedName = binding.importedName;
      const access = ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node ? node.parent : null;
      // `ns.Type` in a type (`let x: core.Blocked`, `typeof ns.value`) is a qualified name, not a property access.
      const qualified = ts.isQualifiedName(node.parent) && node.parent.left === node ? node.parent : null;
      if (importedName === '*' && access) {
        site = access;
        importedName = access.name.text;
      } else if (importedName === '*' && qualified) {
        site = qualified;
        importedName = qualified.right.text;
      }
      const usage: Usage = { specifier: binding.specifier, importedName, line: lineOf(site), kind: usageKind(site), enclosing: enclosingName(site) };
      if (importedName === 'default' && access) {
        usage.member = access.name.text;
        usage.kind = usageKind(access) === 'call' ? 'call' : usage.kind;
      } else if (importedName !== '*' && (access ?? qualified)) {
        // `util.Mask` where `util` is a name a barrel gives a namespace (`export * as util from './util'`).
        const member = access ?? qualified!;
        usage.member = ts.isPropertyAccessExpression(member) ? member.name.text : member.right.text;
        usage.memberKind = usageKind(member);
      }
      usages.push(usage);
    }
    if (!ts.isImportDeclaration(node)) ts.forEachChild(node, visit);
  };
  visit(sf);
  if (bound) for (const [name, binding] of bindings) bound.set(name, binding);
  return usages;
}

/**
 * A Vue or Svelte component's uses: its scripts' (`componentScript`), and in its template each imported name the
 * scripts do not use (`<HelloWorld />`, `<hello-world>`, `{{ format(x) }}`, `{formatDate(d)}`), at its first mention.
 */
function componentUsages(relPath: string, text: string, specifiers: Set<string>): Usage[] {
  const { script, template } = componentParts(text);
  const bindings = new Map<string, { specifier: string; importedName: string }>();
  const usages = findUsages(`${relPath}.ts`, script, specifiers, bindings);
  const used = new Set(usages.map((u) => `${u.specifier}\0${u.importedName}`));
  for (const [name, binding] of bindings) {
    if (used.has(`${binding.specifier}\0${binding.importedName}`)) continue;
    const kebab = kebabCase(name);
    const words = [name, kebab].map((w) => w.replace(/\$/g, '\\$')).join('|');
    const mention = new RegExp(`(?<![\\w$.-])(?:${words})(?![\\w$-])`).exec(template);
    if (!mention) continue;
    const line = template.slice(0, mention.index).split('\n').length;
    usages.push({ specifier: binding.specifier, importedName: binding.importedName, line, kind: 'read', enclosing: null });
  }
  return usages;
}

function isRequireOf(node: ts.Node, specifiers: Set<string>): boolean {
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require'
    && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]) && specifiers.has(node.arguments[0].text);
}

/** False for names that only look like references: property names, keys, declarations. */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isPropertySignature(p)
    || ts.isMethodSignature(p) || ts.isGetAccessor(p) || ts.isSetAccessor(p) || ts.isEnumMember(p)) && p.name === id) return false;
  if ((ts.isFunctionDeclaration(p) || ts.isClassDeclaration(p) || ts.isVariableDeclaration(p) || ts.isParameter(p)
    || ts.isBindingElement(p) || ts.isInterfaceDeclaration(p) || ts.isTypeAliasDeclaration(p)) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) ) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  return true;
}

function usageKind(site: ts.Node): UsageKind {
  const p = site.parent;
  if (ts.isCallExpression(p) && p.expression === site) return 'call';
  if (ts.isNewExpression(p) && p.expression === site) return 'new';
  if (ts.isTypeReferenceNode(p) || ts.isTypeQueryNode(p) || ts.isQualifiedName(p)
    || (ts.isExpressionWithTypeArguments(p) && ts.isHeritageClause(p.parent) && p.parent.token === ts.SyntaxKind.ImplementsKeyword)) return 'type';
  if (ts.isBinaryExpression(p) && p.left === site && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment
    && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return 'write';
  return 'read';
}

/** `Class.method`, `function`, `variable` holding an arrow function, or null at module level. */
export function enclosingName(node: ts.Node): string | null {
  const names: string[] = [];
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isClassDeclaration(at) || ts.isMethodDeclaration(at) || ts.isGetAccessor(at)
      || ts.isSetAccessor(at)) && at.name && ts.isIdentifier(at.name)) names.unshift(at.name.text);
    else if (ts.isConstructorDeclaration(at)) names.unshift('constructor');
    else if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at) || ts.isClassExpression(at))) {
      const holder = at.parent;
      if ((ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) && ts.isIdentifier(holder.name)) {
        names.unshift(holder.name.text);
      } else if (ts.isBinaryExpression(holder) && ts.isPropertyAccessExpression(holder.left)) {
        names.unshift(holder.left.name.text);
      }
    }
  }
  return names.length ? names.slice(-2).join('.') : null;
}

/** Names a module exports, from syntax (ES `export`, `export { … }`, CommonJS `module.exports`/`exports.x`). */
export function exportedNames(relPath: string, text: string): Set<string> {
  const names = new Set<string>();
  if (!SCRIPT.test(relPath)) return names;
  const sf = ts.createSourceFile(relPath, text, ts.ScriptTarget.Latest, false);
  for (const st of sf.statements) {
    const exported = ts.canHaveModifiers(st) && (ts.getModifiers(st) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st)
      || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) names.add(st.name.text);
    else if (exported && ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const el of st.exportClause.elements) names.add(el.name.text);
    } else if (ts.isExportDeclaration(st) && !st.exportClause && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      names.add(`* from ${st.moduleSpecifier.text}`);
    } else if (ts.isExportAssignment(st)) names.add('default');
    else if (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression) && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const left = st.expression.left.getText(sf);
      const right = st.expression.right;
      if (left === 'module.exports') {
        if (ts.isObjectLiteralExpression(right)) {
          for (const p of right.properties) if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) names.add(p.name.text);
        } else names.add('default');
      } else if (/^(module\.)?exports\.[A-Za-z_$][\w$]*$/.test(left)) names.add(left.slice(left.lastIndexOf('.') + 1));
    }
  }
  return names;
}

/** Decision points (branches, loops, boolean short-circuits): a cyclomatic-style complexity count. */
export function decisionPoints(text: string): number {
  const stripped = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, '');
  return (stripped.match(/\b(if|for|while|case|catch|elif|except|when)\b|&&|\|\||\?\?|\?(?=[^.:])/g) ?? []).length;
}
