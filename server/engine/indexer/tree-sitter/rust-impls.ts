import type { Node } from '@vscode/tree-sitter-wasm';

/**
 * The name an `impl` block gives its methods as their parent, from its self type, named as rustdoc files the
 * impl (on the page of the type, primitive or trait it is for):
 * - a named type by its last segment, without generic arguments: `Vec<T>`, `io::Cursor<T>`, `Box<dyn Y>` → `Vec`,
 *   `Cursor`, `Box`;
 * - through references and raw pointers: `&'a str`, `&mut T`, `*const Pipe` → `str`, `T`, `Pipe`;
 * - a trait object by its trait: `impl dyn Error + Send` → `Error`;
 * - a slice, array, tuple, unit, `fn` pointer or `!` as written (whitespace collapsed): `&[u8]` → `[u8]`,
 *   `(IpAddr, u16)`, `()`.
 */
export function implTypeName(type: Node | null): string | null {
  if (!type) return null;
  switch (type.type) {
    case 'type_identifier':
    case 'primitive_type':
      return type.text;
    case 'scoped_type_identifier':
      return type.childForFieldName('name')?.text ?? null;
    case 'generic_type':
    case 'reference_type':
    case 'pointer_type':
      return implTypeName(type.childForFieldName('type'));
    case 'dynamic_type':
      return implTypeName(type.childForFieldName('trait'));
    // `dyn A + Send`, `dyn A + 'a`: the first bound names the type.
    case 'bounded_type':
      return implTypeName(type.namedChildren[0]);
    // `dyn Fn(u8)` is the trait Fn; a `fn(u8)` pointer is written out.
    case 'function_type': {
      const trait = type.childForFieldName('trait');
      return trait ? implTypeName(trait) : type.text.replace(/\s+/g, ' ');
    }
    default:
      return type.text.replace(/\s+/g, ' ') || null;
  }
}
