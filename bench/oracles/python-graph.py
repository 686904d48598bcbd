#!/usr/bin/python3
"""The Python oracle: the file-level import graph of a folder as Python 3 imports it.

    /usr/bin/python3 bench/oracles/python-graph.py FOLDER   ->  JSON {files, edges: [[from, to, type_only]], unparsed}

Import statements come from Python's own parser (ast); every module name is found by importlib's
PathFinder (importlib.machinery.PathFinder.find_spec, parents before children, along the parent package's
__path__), never by looking at files ourselves. What is ours is the project's sys.path and the rule for
statements (ARCHITECTURE.md, Python):
  - sys.path of a file: the nearest folder above it without __init__.py (a script's sys.path[0], pytest's
    rootdir insertion), then the source roots of the projects it sits in (nearest project first), then the
    other source roots; the source roots are the repository root, every src/ folder that is not a package,
    and for each pyproject.toml / setup.cfg / setup.py its folder and the package folders it declares;
  - a name of sys.stdlib_module_names never means a project file (absolute imports), nor does `__main__` (the
    running program, always in sys.modules: PathFinder is never asked for it);
  - `import a.b.c` imports a, a.b, a.b.c; `from X import n` imports X's packages, X, and X.n when PathFinder
    finds it; `from X import *` the submodules X's static __all__ names; each module with a file is an edge;
  - relative names are made absolute with importlib.util.resolve_name against the file's package;
  - a module with a stub beside it (x.pyi by x.py) is also a type-only edge to the stub, except from the module
    itself or its stub (a checker reads one of them, never both);
  - an import in the body of `if TYPE_CHECKING:` (or `x.TYPE_CHECKING`) is type-only, and so is every
    import of a stub (.pyi); a module found only as a stub `name.pyi` stands for itself (a compiled extension).
"""
import ast
import configparser
import importlib.machinery
import importlib.util
import json
import os
import re
import sys
import tomllib

SKIP = {"node_modules", "__pycache__", "site-packages"}
STDLIB = sys.stdlib_module_names | {"__main__"}


def walk(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP)
        for name in filenames:
            if name.endswith((".py", ".pyi")):
                out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(out)


def project_entries(root):
    """pyproject.toml, setup.cfg, setup.py files and src folders, in path order."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP)
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        for name in sorted([n for n in filenames if n in ("pyproject.toml", "setup.cfg", "setup.py")] + [d for d in dirnames if d == "src"]):
            out.append((rel + "/" + name) if rel else name)
    return sorted(out)


def declared_dirs(root, manifest):
    text = open(os.path.join(root, manifest), encoding="utf-8", errors="replace").read()
    name = os.path.basename(manifest)
    dirs = []
    if name == "pyproject.toml":
        try:
            tool = tomllib.loads(text).get("tool", {})
        except tomllib.TOMLDecodeError:
            return []
        st = tool.get("setuptools", {})
        dirs += as_list(st.get("package-dir", {}).get("")) if isinstance(st.get("package-dir"), dict) else []
        find = st.get("packages", {}).get("find", {}) if isinstance(st.get("packages"), dict) else {}
        dirs += as_list(find.get("where"))
        dirs += [p["from"] for p in tool.get("poetry", {}).get("packages", []) if isinstance(p, dict) and isinstance(p.get("from"), str)]
        wheel = tool.get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
        dirs += [os.path.dirname(p) for p in as_list(wheel.get("packages"))]
        dirs += [src for src, to in wheel.get("sources", {}).items() if to == ""] if isinstance(wheel.get("sources"), dict) else []
        dirs += as_list(tool.get("pdm", {}).get("build", {}).get("package-dir"))
        dirs += as_list(tool.get("maturin", {}).get("python-source"))
    elif name == "setup.cfg":
        cfg = configparser.ConfigParser(interpolation=None)
        try:
            cfg.read_string(text)
        except configparser.Error:
            return []
        for line in cfg.get("options", "package_dir", fallback="").splitlines():
            m = re.fullmatch(r"\s*=\s*(\S+)\s*", line)
            if m:
                dirs.append(m.group(1))
        where = cfg.get("options.packages.find", "where", fallback="").strip()
        if where:
            dirs.append(where)
    else:
        dirs += [m.group(2) for m in re.finditer(r"package_dir\s*=\s*\{\s*(['\"])\1\s*:\s*['\"]([^'\"]+)['\"]", text)]
        dirs += [m.group(1) for m in re.finditer(r"find(?:_namespace)?_packages\(\s*(?:where\s*=\s*)?['\"]([^'\"]+)['\"]", text)]
    return dirs


def as_list(v):
    return [v] if isinstance(v, str) else [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def source_roots(root):
    """[(root folder, its project folder)]: the repository root, every src/ that is not a package, each manifest's
    folder and the package folders it declares."""
    roots = []

    def add(rel, project):
        rel = os.path.normpath(rel).replace(os.sep, "/") if rel else ""
        rel = "" if rel == "." else rel
        if rel.startswith("..") or any(r == rel for r, _ in roots) or not os.path.isdir(os.path.join(root, rel)):
            return
        roots.append((rel, project))

    add("", "")
    for entry in project_entries(root):
        name = os.path.basename(entry)
        d = os.path.dirname(entry)
        if name == "src":
            if not os.path.isfile(os.path.join(root, entry, "__init__.py")):
                add(entry, d)
            continue
        add(d, d)
        for declared in declared_dirs(root, entry):
            add(os.path.join(d, declared), d)
    return roots


def within(d, project):
    return project == "" or d == project or d.startswith(project + "/")


def python_path(roots, base, d):
    own = sorted([r for r in roots if within(d, r[1])], key=lambda r: -len(r[1]))
    order = [base] + [r for r, _ in own] + [r for r, p in roots if not within(d, p)]
    return list(dict.fromkeys(order))


def base_dir(root, rel):
    d = os.path.dirname(rel)
    while d and os.path.isfile(os.path.join(root, d, "__init__.py")):
        d = os.path.dirname(d)
    return d


def is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def statements(tree):
    """Import and ImportFrom nodes with their type-only flag."""
    out = []

    def visit(node, type_only):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append((node, type_only))
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, type_only)

    visit(tree, False)
    return out


def literal_names(expr, out):
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        literal_names(expr.left, out)
        literal_names(expr.right, out)
    elif isinstance(expr, (ast.List, ast.Tuple)):
        for e in expr.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
            elif isinstance(e, (ast.List, ast.Tuple)):
                literal_names(e, out)


STATIC_ALL = {}


def static_all(path):
    if path not in STATIC_ALL:
        STATIC_ALL[path] = read_static_all(path)
    return STATIC_ALL[path]


def read_static_all(path):
    """__all__ from a module's top-level statements: = [...] (or tuples, or their sum), += [...], .extend([...]), .append('x')."""
    try:
        tree = ast.parse(open(path, "rb").read())
    except (SyntaxError, ValueError):
        return None
    names = None
    for st in tree.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in st.targets):
            names = []
            literal_names(st.value, names)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == "__all__" and st.value is not None:
            names = []
            literal_names(st.value, names)
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id == "__all__" and isinstance(st.op, ast.Add):
            names = names if names is not None else []
            literal_names(st.value, names)
        elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Attribute) \
                and isinstance(st.value.func.value, ast.Name) and st.value.func.value.id == "__all__" and st.value.args:
            names = names if names is not None else []
            if st.value.func.attr == "extend":
                literal_names(st.value.args[0], names)
            elif st.value.func.attr == "append" and isinstance(st.value.args[0], ast.Constant) and isinstance(st.value.args[0].value, str):
                names.append(st.value.args[0].value)
    return names


class Finder:
    def __init__(self, root):
        self.root = root
        self.cache = {}

    def find(self, fullname, path):
        """PathFinder's spec for fullname along path (absolute folders), or a stub .pyi alone."""
        key = (fullname, tuple(path))
        if key not in self.cache:
            spec = importlib.machinery.PathFinder.find_spec(fullname, list(path))
            if spec is None or (spec.origin is None and not spec.submodule_search_locations):
                spec = None
            if spec is None or spec.loader is None:  # nothing, or a namespace package: a stub alone may stand for it
                tail = fullname.rpartition(".")[2]
                stub = next((os.path.join(p, tail + ".pyi") for p in path if os.path.isfile(os.path.join(p, tail + ".pyi"))), None)
                if stub and spec is None:
                    spec = importlib.machinery.ModuleSpec(fullname, None, origin=stub)
            self.cache[key] = spec
        return self.cache[key]

    def chain(self, parts, path):
        specs = []
        locations = path
        for i in range(len(parts)):
            if locations is None:
                break
            spec = self.find(".".join(parts[: i + 1]), locations)
            if spec is None:
                break
            specs.append(spec)
            locations = list(spec.submodule_search_locations) if spec.submodule_search_locations is not None else None
        return specs

    def rel(self, spec):
        if spec is None or spec.origin is None or not os.path.isfile(spec.origin):
            return None
        return os.path.relpath(spec.origin, self.root).replace(os.sep, "/")


def graph(root):
    root = os.path.realpath(root)
    roots = source_roots(root)
    finder = Finder(root)
    files = walk(root)
    edges = {}
    unparsed = []
    for f in files:
        try:
            tree = ast.parse(open(os.path.join(root, f), "rb").read(), filename=f)
        except (SyntaxError, ValueError):
            unparsed.append(f)
            continue
        base = base_dir(root, f)
        d = os.path.dirname(f)
        package = "" if d == base else (d if base == "" else d[len(base) + 1 :]).replace("/", ".")
        path = [os.path.join(root, p) if p else root for p in python_path(roots, base, d)]
        stub = f.endswith(".pyi")

        def edge(spec, type_only):
            to = finder.rel(spec)
            if to and to != f and to + "i" != f:  # a stub's own module (`from . import x` in __init__.pyi) is the stub
                key = (f, to)
                edges[key] = edges.get(key, True) and type_only
                # The stub beside a module is what a type checker reads for it (PEP 561): a type-only edge too.
                if to.endswith(".py") and os.path.isfile(os.path.join(root, to + "i")):
                    edges.setdefault((f, to + "i"), True)

        for node, type_only in statements(tree):
            type_only = type_only or stub
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] in STDLIB:
                        continue
                    for spec in finder.chain(parts, path):
                        edge(spec, type_only)
                continue
            if node.level:
                try:
                    name = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
                except ImportError:
                    continue
                lookup = [os.path.join(root, base) if base else root]
            else:
                name = node.module
                if name.split(".")[0] in STDLIB:
                    continue
                lookup = path
            parts = name.split(".")
            specs = finder.chain(parts, lookup)
            for spec in specs:
                edge(spec, type_only)
            if len(specs) != len(parts) or specs[-1].submodule_search_locations is None:
                continue
            package_spec = specs[-1]
            wanted = [a.name for a in node.names]
            if wanted == ["*"]:
                origin = package_spec.origin
                wanted = (static_all(origin) if origin and os.path.basename(origin) == "__init__.py" else None) or []
            for n in wanted:
                edge(finder.find(name + "." + n, list(package_spec.submodule_search_locations)), type_only)
    return {
        "files": files,
        "roots": [r for r, _ in roots],
        "edges": sorted([a, b, t] for (a, b), t in edges.items()),
        "unparsed": unparsed,
    }


if __name__ == "__main__":
    json.dump(graph(sys.argv[1]), sys.stdout)
