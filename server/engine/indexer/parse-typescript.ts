import ts from 'typescript';
import type { ParsedImport, ParsedSymbol, SymbolKind } from '../types';
import type { ModuleResolver, ResolutionModeName } from './resolver';

export interface ScriptAnalysis {
  symbols: ParsedSymbol[];
  imports: ParsedImport[];
  description: string | null;
  /** The unit the file declares it belongs to (Go: its package clause), for languages that have one. */
  unit?: string | null;
  /** The file holds tests of its own code (Rust's `#[test]` functions), whatever its path. */
  holdsTests?: boolean;
}

// Built on first use: reading ts.ScriptKind at module load would load TypeScript with the bundle.
let scriptKinds: Record<string, ts.ScriptKind> | null = null;
const SCRIPT_KINDS = (): Record<string, ts.ScriptKind> => (scriptKinds ??= {
  ts: ts.ScriptKind.TS, mts: ts.ScriptKind.TS, cts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX,
  js: ts.ScriptKind.JS, mjs: ts.ScriptKind.JS, cjs: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX,
});

/** Symbols, import/export edges and the file's own description, from the TypeScript compiler's parser. */
export function analyzeScript(relPath: string, text: string, resolver: ModuleResolver): ScriptAnalysis {
  const name = relPath.slice(relPath.lastIndexOf('/') + 1);
  // A name without an extension is a `#!/usr/bin/env node` executable (languages.ts languageOf): JavaScript.
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : 'js';
  // No parent pointers and no JSDoc parsing: both cost a fifth of the parse and we read comments from the text.
  const sf = ts.createSourceFile(relPath, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, SCRIPT_KINDS()[ext] ?? ts.ScriptKind.TS);
  const javascript = ext === 'js' || ext === 'mjs' || ext === 'cjs' || ext === 'jsx';
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const symbols: ParsedSymbol[] = [];
  const imports: ParsedImport[] = [];
  const commonJsExports = new Set<string>();

  const addImport = (specifier: string, kind: ParsedImport['kind'], typeOnly: boolean, names: string[], node: ts.Node, mode?: ResolutionModeName) => {
    const r = resolver.resolve(relPath, specifier, kind, mode);
    const line = lineOf(node.getStart(sf));
    const declaration = r.typeTargets?.[0];
    // A declaration beside the JavaScript it describes (resolver.ts withRuntimeFile): a TypeScript file's type-only
    // import reads the declaration alone; any other import runs the JavaScript and is typed by the declaration.
    // (A JavaScript file's `import type` is Flow's, whose types are in the JavaScript.)
    if (declaration && typeOnly && !javascript) {
      imports.push({ specifier, kind, typeOnly, targetPath: declaration, packageName: null, names, line });
      return;
    }
    imports.push({ specifier, kind, typeOnly, targetPath: r.targetPath, packageName: r.packageName, names, line });
    if (declaration) imports.push({ specifier, kind, typeOnly: true, targetPath: declaration, packageName: null, names, line });
  };

  const addSymbol = (node: ts.Node, name: string, kind: SymbolKind, parent: string | null, exported: boolean) => {
    symbols.push({
      name, kind, parent, exported,
      startLine: lineOf(node.getStart(sf)),
      endLine: lineOf(node.getEnd()),
      signature: signatureOf(node, sf),
      doc: docOf(node, sf),
    });
  };

  for (const statement of sf.statements) {
    const exported = hasExportModifier(statement);
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const names: string[] = [];
      let typeOnly = clause?.isTypeOnly ?? false;
      if (clause) {
        if (clause.name) names.push('default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings)) {
          for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
          if (!typeOnly && !clause.name && bindings.elements.length > 0 && bindings.elements.every((el) => el.isTypeOnly)) typeOnly = true;
        }
      }
      addImport(statement.moduleSpecifier.text, 'import', typeOnly, names, statement, clause?.isTypeOnly ? resolutionModeOf(statement.attributes) : undefined);
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
        const clause = statement.exportClause;
        const names = clause && ts.isNamedExports(clause) ? clause.elements.map((el) => (el.propertyName ?? el.name).text) : ['*'];
        let typeOnly = statement.isTypeOnly;
        if (!typeOnly && clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((el) => el.isTypeOnly)) typeOnly = true;
        addImport(statement.moduleSpecifier.text, clause ? 'export' : 'export-all', typeOnly, names, statement,
          statement.isTypeOnly ? resolutionModeOf(statement.attributes) : undefined);
      } else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const el of statement.exportClause.elements) commonJsExports.add((el.propertyName ?? el.name).text);
      }
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      const expr = statement.moduleReference.expression;
      if (ts.isStringLiteral(expr)) addImport(expr.text, 'require', statement.isTypeOnly, [statement.name.text], statement);
    } else if (ts.isFunctionDeclaration(statement) && (statement.name || isDefaultExport(statement))) {
      addSymbol(statement, statement.name?.text ?? 'default', 'function', null, exported);
    } else if (ts.isClassDeclaration(statement) && (statement.name || isDefaultExport(statement))) {
      const name = statement.name?.text ?? 'default';
      addSymbol(statement, name, 'class', null, exported);
      addClassMembers(statement, name, addSymbol);
    } else if (ts.isInterfaceDeclaration(statement)) {
      addSymbol(statement, statement.name.text, 'interface', null, exported);
    } else if (ts.isTypeAliasDeclaration(statement)) {
      addSymbol(statement, statement.name.text, 'type', null, exported);
    } else if (ts.isEnumDeclaration(statement)) {
      addSymbol(statement, statement.name.text, 'enum', null, exported);
    } else if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) {
      addSymbol(statement, statement.name.text, 'module', null, exported);
    } else if (ts.isVariableStatement(statement)) {
      const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      for (const decl of statement.declarationList.declarations) {
        if (!ts.isIdentifier(decl.name)) continue;
        const init = decl.initializer;
        // `var proto = module.exports = function (options) {…}`: the variable is what the module exports.
        const targets = init ? assignmentChain(init, sf).targets : [];
        const kind: SymbolKind = init && functionIn(init) ? 'function'
          : init && ts.isClassExpression(init) ? 'class'
            : isConst ? 'constant' : 'variable';
        addSymbol(statement.declarationList.declarations.length === 1 ? statement : decl, decl.name.text, kind, null, exported || targets.some(isModuleExports));
        if (init && ts.isClassExpression(init)) addClassMembers(init, decl.name.text, addSymbol);
        else if (init && isClassFactoryCall(init)) addObjectMethods(init, decl.name.text, addSymbol);
      }
    } else if (ts.isExportAssignment(statement)) {
      // `export default name`, `export default { a, b: c }`, `export default (config) => {…}`.
      exportValue(statement.expression, commonJsExports, () => addSymbol(statement, functionName(statement.expression) ?? 'default', 'function', null, true));
    } else if (ts.isExpressionStatement(statement)) {
      collectAssignment(sf, statement, commonJsExports, addSymbol);
    }
  }

  // require() and import() anywhere in the file.
  if (text.includes('require') || text.includes('import(')) {
    const visit = (node: ts.Node, parent: ts.Node): void => {
      if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
        const callee = node.expression;
        const spec = (node.arguments[0] as ts.StringLiteralLike).text;
        if (ts.isIdentifier(callee) && callee.text === 'require' && node.arguments.length === 1) {
          addImport(spec, 'require', false, requiredNames(parent), node);
        } else if (callee.kind === ts.SyntaxKind.ImportKeyword) {
          addImport(spec, 'dynamic', false, [], node);
        }
      }
      ts.forEachChild(node, (child) => visit(child, node));
    };
    ts.forEachChild(sf, (child) => visit(child, sf));
  }

  for (const s of symbols) if (s.parent === null && commonJsExports.has(s.name)) s.exported = true;
  // A class member was marked exported when it is public; it is visible outside only if its class is.
  const exportedTypes = new Set(symbols.filter((s) => s.parent === null && s.exported).map((s) => s.name));
  for (const s of symbols) if (s.parent !== null && s.exported && !exportedTypes.has(s.parent)) s.exported = false;
  // `/// <reference path>` puts the file in the compiler's program (its global declarations): a
  // dependency the compiler sees, erased at run time.
  for (const ref of sf.referencedFiles) {
    const targetPath = resolver.resolveReferencePath(relPath, ref.fileName);
    imports.push({ specifier: ref.fileName, kind: 'include', typeOnly: true, targetPath, packageName: null, names: [], line: lineOf(ref.pos) });
  }
  // `/// <reference types>` puts a package's types in the program: a dependency on the package, erased at run time.
  for (const ref of sf.typeReferenceDirectives) {
    const { targetPath, packageName } = resolver.resolveTypeReference(relPath, ref.fileName);
    imports.push({ specifier: ref.fileName, kind: 'types', typeOnly: true, targetPath, packageName, names: [], line: lineOf(ref.pos) });
  }

  return { symbols, imports, description: fileDescription(sf) };
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

type AddSymbol = (node: ts.Node, name: string, kind: SymbolKind, parent: string | null, exported: boolean) => void;

/**
 * Methods, accessors, the constructor and properties of a class. A property holding a function
 * (`fetch = (req) => …`, or typed as one in a declaration file) is a method: it is called like one.
 * Public members of an exported class are exported (settled once the file's exports are known).
 */
function addClassMembers(cls: ts.ClassLikeDeclaration, className: string, add: AddSymbol): void {
  for (const member of cls.members) {
    const visible = isPublicMember(member);
    if ((ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isSetAccessor(member)) && member.name && ts.isIdentifier(member.name)) {
      add(member, member.name.text, 'method', className, visible);
    } else if (ts.isConstructorDeclaration(member)) {
      add(member, 'constructor', 'method', className, visible);
    } else if (ts.isPropertyDeclaration(member) && ts.isIdentifier(member.name)) {
      const init = member.initializer;
      const callable = (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) || (member.type && ts.isFunctionTypeNode(member.type));
      add(member, member.name.text, callable ? 'method' : 'property', className, visible);
    }
  }
}

function isPublicMember(member: ts.ClassElement): boolean {
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  const modifiers = ts.canHaveModifiers(member) ? ts.getModifiers(member) ?? [] : [];
  return !modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
}

/** `new Class({ method: function () {} })` and `Class.create({...})` factories, common in CommonJS code bases. */
function isClassFactoryCall(init: ts.Expression): boolean {
  return (ts.isNewExpression(init) || ts.isCallExpression(init)) && (init.arguments ?? []).some(ts.isObjectLiteralExpression);
}

function addObjectMethods(init: ts.Expression, owner: string, add: AddSymbol): void {
  const args = (init as ts.NewExpression | ts.CallExpression).arguments ?? [];
  for (const arg of args) {
    if (!ts.isObjectLiteralExpression(arg)) continue;
    for (const prop of arg.properties) {
      if (ts.isMethodDeclaration(prop) && ts.isIdentifier(prop.name)) add(prop, prop.name.text, 'method', owner, false);
      else if (ts.isPropertyAssignment(prop) && ts.isIdentifier(prop.name) && (ts.isFunctionExpression(prop.initializer) || ts.isArrowFunction(prop.initializer))) {
        add(prop, prop.name.text, 'method', owner, false);
      }
    }
  }
}

const isDefaultExport = (node: ts.Node) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** `module.exports` and `exports` themselves (not a property of them). */
const isModuleExports = (target: string) => target === 'module.exports' || target === 'exports';

/** `a = b = value`: the assigned targets' texts, left to right, and the value at the end. */
function assignmentChain(expr: ts.Expression, sf: ts.SourceFile): { targets: string[]; value: ts.Expression } {
  const targets: string[] = [];
  let value = expr;
  while (ts.isBinaryExpression(value) && value.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    targets.push(value.left.getText(sf));
    value = value.right;
  }
  return { targets, value };
}

/**
 * The function an expression evaluates to, when it is one: `function () {}`, `(x) => x`, and through
 * parentheses, assignments and guards (`supported && function () {}`, `a = b = function () {}`).
 */
function functionIn(expr: ts.Expression): ts.FunctionExpression | ts.ArrowFunction | null {
  if (ts.isFunctionExpression(expr) || ts.isArrowFunction(expr)) return expr;
  if (ts.isParenthesizedExpression(expr)) return functionIn(expr.expression);
  if (ts.isBinaryExpression(expr)) {
    const op = expr.operatorToken.kind;
    if (op === ts.SyntaxKind.EqualsToken || op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
      return functionIn(expr.right);
    }
  }
  return null;
}

/** The own name of the function an expression holds (`function send() {}`), if it has one. */
const functionName = (expr: ts.Expression): string | null => {
  const fn = functionIn(expr);
  return fn && ts.isFunctionExpression(fn) && fn.name ? fn.name.text : null;
};

/**
 * What a module exports as a whole (`module.exports = …`, `export default …`): the top-level names it
 * refers to (`X`, `{ a, b: c }`) are marked exported; a function is added by `addFunction`.
 */
function exportValue(value: ts.Expression, exported: Set<string>, addFunction: () => void): void {
  if (ts.isIdentifier(value)) exported.add(value.text);
  else if (ts.isObjectLiteralExpression(value)) {
    for (const p of value.properties) {
      if (ts.isShorthandPropertyAssignment(p)) exported.add(p.name.text);
      else if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.initializer)) exported.add(p.initializer.text);
    }
  } else if (functionIn(value)) addFunction();
}

const PROPERTY_TARGET = /^(?:(?:module\.)?exports|([A-Za-z_$][\w$]*)(?:\.prototype)?)\.([A-Za-z_$][\w$]*)$/;

/**
 * A top-level assignment, CommonJS style. `module.exports = X` / `{ a, b }` / `function () {}` and
 * `exports.a = function () {}` export; a function assigned to a property of a name is a method of that
 * name: `Layer.prototype.match = function match(path) {…}` is `Layer.match`, `app.listen = function () {…}`
 * is `app.listen` (exported when its owner is). Every target of `req.get = req.header = function () {…}`
 * gets the function.
 */
function collectAssignment(sf: ts.SourceFile, statement: ts.ExpressionStatement, exported: Set<string>, add: AddSymbol): void {
  const { targets, value } = assignmentChain(statement.expression, sf);
  if (!targets.length) return;
  const fn = functionIn(value);
  for (const target of targets) {
    if (isModuleExports(target)) {
      exportValue(value, exported, () => add(statement, functionName(value) ?? 'default', 'function', null, true));
      continue;
    }
    const m = PROPERTY_TARGET.exec(target);
    if (!m) continue;
    const [, owner, name] = m;
    if (!owner) {
      if (fn) add(statement, name, 'function', null, true);
      else if (ts.isIdentifier(value)) exported.add(value.text);
    } else if (fn) {
      add(statement, name, 'method', owner, true);
    }
  }
}

/** What a require() call binds, from the node that contains the call. */
function requiredNames(parent: ts.Node): string[] {
  if (ts.isVariableDeclaration(parent)) {
    if (ts.isObjectBindingPattern(parent.name)) {
      return parent.name.elements.map((el) => (el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : (el.name as ts.Identifier).text));
    }
    return ['*'];
  }
  if (ts.isPropertyAccessExpression(parent)) return [parent.name.text];
  return [];
}

const MAX_SIGNATURE = 400;
/** An initializer short enough to be part of a signature (`= 3`, `= 'utf8'`); longer ones are a body. */
const MAX_INLINE_VALUE = 80;

/**
 * A declaration's header, as one line: from its first modifier (decorators left out) to where its body
 * starts (a function's block, an arrow's body, a class's or interface's `{`), without comments. A variable
 * or property keeps its type and, when short, its value; one holding a function or class gets that
 * function's or class's header instead.
 */
function signatureOf(node: ts.Node, sf: ts.SourceFile): string | null {
  const start = startAfterDecorators(node, sf);
  const end = headerEnd(node, sf);
  const text = headerText(sf, start, Math.max(start, end)).replace(/\s*[{;,]$/, '');
  return text ? (text.length > MAX_SIGNATURE ? `${text.slice(0, MAX_SIGNATURE - 1)}…` : text) : null;
}

function startAfterDecorators(node: ts.Node, sf: ts.SourceFile): number {
  const decorators = ts.canHaveDecorators(node) ? ts.getDecorators(node) : undefined;
  return decorators?.length ? decorators[decorators.length - 1].end : node.getStart(sf);
}

/** Where the header of a declaration ends (exclusive). */
function headerEnd(node: ts.Node, sf: ts.SourceFile): number {
  if (ts.isVariableStatement(node)) {
    const decls = node.declarationList.declarations;
    return decls.length === 1 ? headerEnd(decls[0], sf) : node.getEnd();
  }
  if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) {
    const init = node.initializer;
    if (!init) return node.getEnd();
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init) || ts.isClassExpression(init)) return headerEnd(init, sf);
    const fn = functionIn(init);
    if (fn) return headerEnd(fn, sf);
    const value = init.getText(sf);
    // `name = value` when the value is short and on one line; else the name and its type only.
    if (value.length <= MAX_INLINE_VALUE && !value.includes('\n')) return init.getEnd();
    return typeEnd(node, sf);
  }
  if (ts.isTypeAliasDeclaration(node)) {
    const type = node.type.getText(sf);
    if (type.length <= MAX_INLINE_VALUE && !type.includes('\n')) return node.type.getEnd();
    const equals = sf.text.lastIndexOf('=', node.type.pos);
    return equals > node.name.getEnd() ? equals : node.name.getEnd();
  }
  if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node) || ts.isEnumDeclaration(node)) {
    // The members start right after the `{`.
    const brace = sf.text.lastIndexOf('{', node.members.pos);
    return brace > node.getStart(sf) ? brace : node.getEnd();
  }
  if (ts.isExpressionStatement(node) || ts.isExportAssignment(node)) {
    // `exports.compileETag = function (val) {…}`, `export default (config) => {…}`: up to the function's body.
    const fn = functionIn(node.expression);
    return fn ? headerEnd(fn, sf) : node.getEnd();
  }
  if (ts.isArrowFunction(node)) return node.body.getStart(sf);
  const body = (node as { body?: ts.Node }).body;
  return body ? body.getStart(sf) : node.getEnd();
}

/** A property or variable up to its type annotation (or its name), before ` = value`. */
function typeEnd(node: ts.VariableDeclaration | ts.PropertyDeclaration | ts.PropertyAssignment, sf: ts.SourceFile): number {
  if (!ts.isPropertyAssignment(node) && node.type) return node.type.getEnd();
  return node.name.getEnd() + (sf.text.slice(node.name.getEnd()).match(/^[?!]/)?.[0].length ?? 0);
}

/** The tokens between two positions joined by single spaces where the source had any trivia: comments and line breaks go. */
function headerText(sf: ts.SourceFile, start: number, end: number): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, sf.languageVariant, sf.text, undefined, start, end - start);
  let out = '';
  let previousEnd = start;
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    const tokenStart = scanner.getTokenStart();
    if (tokenStart >= end) break;
    const gap = tokenStart > previousEnd;
    const text = sf.text.slice(tokenStart, Math.min(scanner.getTokenEnd(), end));
    // A line break after an opening or before a closing bracket leaves no space (nor a trailing comma).
    if (gap && /^[)>\]]/.test(text)) out = out.replace(/,$/, '');
    out += gap && out && !/[(<[]$/.test(out) && !/^[)>\],;]/.test(text) ? ` ${text}` : text;
    previousEnd = scanner.getTokenEnd();
  }
  return out.trim();
}

function docOf(node: ts.Node, sf: ts.SourceFile): string | null {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const jsdoc = ranges.filter((r) => sf.text.startsWith('/**', r.pos)).pop();
  return jsdoc ? cleanComment(sf.text.slice(jsdoc.pos, jsdoc.end)) : null;
}

export function cleanComment(comment: string): string | null {
  const cleaned = comment
    .replace(/^\/\*[*!]?/, '').replace(/\*\/$/, '')
    .split('\n').map((l) => l.replace(/^\s*\*?\s?/, '').replace(/^\s*\/\/\s?/, '')).join('\n').trim();
  return cleaned ? (cleaned.length > 2000 ? `${cleaned.slice(0, 1997)}...` : cleaned) : null;
}

/** A copyright or license notice: a paragraph saying it is not the file's description. */
const BANNER = /\bcopyright\b|\(c\)\s*\d{4}|©|\blicensed\b|@license\b|SPDX-License-Identifier|all rights reserved/i;

/**
 * The leading comment of the file. A license banner is skipped (`/*! express Copyright(c) … MIT Licensed *\/`
 * describes nobody's code), and so is a comment naming a license or an author when a second comment follows.
 */
function fileDescription(sf: ts.SourceFile): string | null {
  const ranges = ts.getLeadingCommentRanges(sf.text, 0) ?? [];
  for (const r of ranges) {
    const text = cleanComment(sf.text.slice(r.pos, r.end));
    if (!text) continue;
    if (/copyright|license|@author/i.test(text) && ranges.length > 1 && r !== ranges[ranges.length - 1]) continue;
    const firstParagraph = text.split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
    if (/^(@|eslint|prettier|tslint|#!)/.test(firstParagraph) || BANNER.test(firstParagraph)) continue;
    return firstParagraph.length > 300 ? `${firstParagraph.slice(0, 297)}...` : firstParagraph;
  }
  return null;
}

/**
 * `with { 'resolution-mode': 'require' }` on an `import type`/`export type` (the only imports the compiler reads it on,
 * ts.getModeForUsageLocation): the package.json `exports` condition its types are resolved with.
 */
function resolutionModeOf(attributes: ts.ImportAttributes | undefined): ResolutionModeName | undefined {
  for (const a of attributes?.elements ?? []) {
    if ((ts.isIdentifier(a.name) || ts.isStringLiteral(a.name)) && a.name.text === 'resolution-mode' && ts.isStringLiteral(a.value)) {
      if (a.value.text === 'import' || a.value.text === 'require') return a.value.text;
    }
  }
  return undefined;
}
