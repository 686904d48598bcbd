#!/usr/bin/env python3
"""
The module tree of a Rust crate as rustc sees it: the .rs files `rustc --emit=dep-info` lists for the crate root,
united over configurations (every Cargo feature on; then with --test, with each custom cfg the sources test, and
with windows), since a file behind a cfg belongs to the tree in some build. Errors of name resolution (the crate's
dependencies are absent) do not stop rustc from writing the dep-info: the tree comes from expansion, before them.

usage: rust-modules.py <crate dir> <root file, e.g. src/lib.rs> [rustc]
prints JSON: {"root": ..., "files": [...], "configurations": n}
"""
import json, os, re, subprocess, sys, tempfile, tomllib

crate, root = sys.argv[1], sys.argv[2]
rustc = sys.argv[3] if len(sys.argv) > 3 else 'rustc'
manifest = tomllib.load(open(os.path.join(crate, 'Cargo.toml'), 'rb'))
edition = manifest.get('package', {}).get('edition', '2015')
features = []
for name in manifest.get('features', {}):
    features += ['--cfg', f'feature="{name}"']
# Optional dependencies are features too, a target's (`[target."cfg(…)".dependencies]`) as well.
tables = [manifest.get('dependencies', {})] + [t.get('dependencies', {}) for t in manifest.get('target', {}).values()]
for name in sorted({n for table in tables for n, spec in table.items() if isinstance(spec, dict) and spec.get('optional')}):
    features += ['--cfg', f'feature="{name}"']

STANDARD = {'feature', 'test', 'unix', 'windows', 'not', 'all', 'any', 'doc', 'debug_assertions', 'target_os', 'target_arch',
            'target_family', 'target_env', 'target_pointer_width', 'target_endian', 'target_vendor', 'target_has_atomic',
            'target_feature', 'panic', 'proc_macro', 'doctest', 'miri', 'unix', 'target'}
def predicates(text):
    """The predicates of `#[cfg(…)]`, `cfg!(…)` and the first argument of `#[cfg_attr(…, …)]`, by balanced parentheses."""
    for match in re.finditer(r'#\s*!?\s*\[\s*(cfg|cfg_attr)\s*\(|\bcfg!\s*\(', text):
        depth, start, i = 1, match.end(), match.end()
        while i < len(text) and depth:
            depth += {'(': 1, ')': -1}.get(text[i], 0)
            if depth == 1 and text[i] == ',' and match.group(1) == 'cfg_attr':
                break
            i += 1
        yield text[start:i]

custom = set()
for folder, _, names in os.walk(os.path.join(crate, 'src')):
    for name in names:
        if name.endswith('.rs'):
            text = open(os.path.join(folder, name), encoding='utf-8', errors='replace').read()
            text = re.sub(r'/\*.*?\*/', '', re.sub(r'//[^\n]*', '', text), flags=re.S)  # comments (doc comments show cfgs in prose)
            for cfg in predicates(text):
                cfg = re.sub(r'"[^"]*"', '', cfg)
                custom |= {w for w in re.findall(r'\b([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*[=(])', cfg) if w not in STANDARD}

files = set()
runs = 0
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, 'deps.d')
    extras = [[], ['--test'], ['--cfg', 'windows'], ['--cfg', 'windows', '--test']]
    extras += [['--cfg', c] for c in sorted(custom)] + [['--test', '--cfg', c] for c in sorted(custom)]
    for extra in extras:
        if os.path.exists(out):
            os.remove(out)
        subprocess.run([rustc, '--edition', edition, '--crate-type', 'lib', '--emit=dep-info', '-o', out, *features, *extra, root],
                       cwd=crate, capture_output=True, text=True, timeout=600)
        runs += 1
        if os.path.exists(out):
            first = open(out, encoding='utf-8').readline()
            files |= {os.path.normpath(f) for f in first.split(':', 1)[1].split() if f.endswith('.rs')}
print(json.dumps({'root': root, 'files': sorted(files), 'configurations': runs, 'cfgs': sorted(custom)}))
