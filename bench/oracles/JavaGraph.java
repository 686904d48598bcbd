import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.lang.model.element.*;
import javax.tools.*;
import java.nio.file.*;
import java.util.*;
import java.util.stream.*;

/**
 * The Java oracle of bench/radius-exactness.ts: javac itself (JDK 17's compiler API) reads every .java file of a
 * folder, enters and attributes them together (no class path: a type from outside the folder stays unresolved,
 * and attribution goes on past those errors), and reports, per file, the other files of the folder whose types
 * the file names: a single-type or static import, or a name in its code (a simple or qualified type name, a
 * static member's qualifier, an annotation). A type nested in another is its top-level type's file.
 *
 *   java bench/oracles/JavaGraph.java <folder>   (JDK 11+ runs a single source file; prints JSON)
 */
public class JavaGraph {
  public static void main(String[] args) throws Exception {
    Path root = Paths.get(args[0]).toAbsolutePath().normalize();
    List<Path> sources;
    try (Stream<Path> walk = Files.walk(root)) {
      sources = walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p)).sorted().collect(Collectors.toList());
    }
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StandardJavaFileManager fm = compiler.getStandardFileManager(null, null, null);
    List<String> options = List.of("-proc:none", "-implicit:none", "-Xmaxerrs", "0", "-XDshould-stop.ifError=FLOW", "-XDshould-stop.ifNoError=FLOW", "-nowarn");
    // A file with a syntax error (reported while parsing) has no graph javac vouches for: listed as unparsed.
    Set<String> unparsed = new TreeSet<>();
    boolean[] parsing = { true };
    DiagnosticListener<JavaFileObject> listener = d -> {
      if (parsing[0] && d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) unparsed.add(root.relativize(Paths.get(d.getSource().toUri())).toString());
    };
    JavacTask task = (JavacTask) compiler.getTask(null, fm, listener, options, null, fm.getJavaFileObjectsFromPaths(sources));
    Trees trees = Trees.instance(task);
    SourcePositions positions = trees.getSourcePositions();
    Iterable<? extends CompilationUnitTree> units = task.parse();
    parsing[0] = false;
    task.analyze();
    Map<String, Set<String>> edges = new TreeMap<>();
    List<String> files = new ArrayList<>();
    for (CompilationUnitTree unit : units) {
      String from = root.relativize(Paths.get(unit.getSourceFile().toUri())).toString();
      files.add(from);
      Set<String> to = new TreeSet<>();
      new TreePathScanner<Void, Void>() {
        void note(Element e) {
          if (e == null) return;
          if (!(e instanceof TypeElement)) {
            if (e.getKind() == ElementKind.PACKAGE || e.getKind() == ElementKind.TYPE_PARAMETER || e.getEnclosingElement() == null) return;
            // A static import's member: its type.
            if (!(e.getEnclosingElement() instanceof TypeElement)) return;
            e = e.getEnclosingElement();
          }
          Element top = e;
          while (top.getEnclosingElement() instanceof TypeElement) top = top.getEnclosingElement();
          TreePath where = trees.getPath(top);
          if (where == null) return; // not from a source file of the folder
          Path file = Paths.get(where.getCompilationUnit().getSourceFile().toUri());
          if (!file.startsWith(root)) return;
          String rel = root.relativize(file).toString();
          if (!rel.equals(from)) to.add(rel);
        }
        @Override public Void visitImport(ImportTree node, Void v) {
          Tree q = node.getQualifiedIdentifier();
          if (q instanceof MemberSelectTree) {
            MemberSelectTree ms = (MemberSelectTree) q;
            TreePath owner = new TreePath(new TreePath(getCurrentPath(), q), ms.getExpression());
            if (node.isStatic()) note(trees.getElement(owner)); // `import static a.b.C.m` / `a.b.C.*`: C
            else if (!ms.getIdentifier().contentEquals("*")) note(trees.getElement(new TreePath(getCurrentPath(), q)));
          }
          return null;
        }
        /** A name written in the file: javac also makes trees of its own (an implicit lambda parameter's inferred type), without an end. */
        boolean written(Tree node) {
          return positions.getEndPosition(unit, node) > positions.getStartPosition(unit, node);
        }
        @Override public Void visitIdentifier(IdentifierTree node, Void v) {
          if (!written(node)) return null;
          Element e = trees.getElement(getCurrentPath());
          if (e instanceof TypeElement) note(e);
          return null;
        }
        @Override public Void visitMemberSelect(MemberSelectTree node, Void v) {
          if (!written(node)) return null;
          Element e = trees.getElement(getCurrentPath());
          if (e instanceof TypeElement) { note(e); return null; } // `a.b.C` or `Outer.Inner`: the type named, not its qualifier again
          return super.visitMemberSelect(node, v);
        }
        @Override public Void visitPackage(PackageTree node, Void v) { return null; }
      }.scan(unit, null);
      if (!to.isEmpty()) edges.put(from, to);
    }
    StringBuilder out = new StringBuilder("{\"files\":[");
    out.append(files.stream().map(JavaGraph::quote).collect(Collectors.joining(",")));
    out.append("],\"unparsed\":[").append(unparsed.stream().map(JavaGraph::quote).collect(Collectors.joining(","))).append("],\"edges\":[");
    List<String> rows = new ArrayList<>();
    for (Map.Entry<String, Set<String>> e : edges.entrySet()) for (String t : e.getValue()) rows.add("[" + quote(e.getKey()) + "," + quote(t) + ",false]");
    out.append(String.join(",\n", rows)).append("]}\n");
    System.out.print(out);
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
