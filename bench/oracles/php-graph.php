<?php
// The PHP oracle: a folder's file-to-file graph as PHP itself sees it, for bench/radius-exactness.ts.
//   php bench/oracles/php-graph.php <dir>   (Debian: php-cli, php-parser, php-composer-class-map-generator)
// - Names: nikic/php-parser's NameResolver gives every class name in code its fully qualified form by PHP's own
//   compile-time rules (namespace, `use` aliases, group uses, `\`-qualified names); a function's or constant's name
//   (FuncCall, ConstFetch) is not a class. A `use` of a class counts as a use of it.
// - Where a class lives: Composer's ClassMapGenerator (the classmap autoloader's own scan of the folder), by exact
//   name, as the autoloader looks it up; a name found only in another letter case is listed apart (`caseOnly`).
// - include/require of a literal path: 'x.php', __DIR__ . '/x.php' or dirname(__FILE__) . '/x.php', from the file's
//   folder, when it exists inside the folder.
// Prints {files, edges: [from, to, false][], unparsed, caseOnly} as JSON; a file the parser rejects is in `unparsed`.
require '/usr/share/php/PhpParser/autoload.php';
require '/usr/share/php/Composer/ClassMapGenerator/autoload.php';

use PhpParser\Node;
use PhpParser\NodeFinder;
use PhpParser\NodeTraverser;
use PhpParser\NodeVisitor\NameResolver;
use PhpParser\NodeVisitor\ParentConnectingVisitor;
use PhpParser\ParserFactory;

/** The path an include names, from the file's folder: 'x.php', __DIR__ . '/x.php' or dirname(__FILE__) . '/x.php'; else null. */
function includedPath(Node\Expr $e, string $file): ?string {
  if ($e instanceof Node\Scalar\String_) return dirname($file) . '/' . $e->value;
  if (!($e instanceof Node\Expr\BinaryOp\Concat) || !($e->right instanceof Node\Scalar\String_)) return null;
  $l = $e->left;
  $here = $l instanceof Node\Scalar\MagicConst\Dir
    || ($l instanceof Node\Expr\FuncCall && $l->name instanceof Node\Name && strtolower($l->name->toString()) === 'dirname'
      && count($l->args) === 1 && $l->args[0]->value instanceof Node\Scalar\MagicConst\File);
  return $here ? dirname($file) . '/' . ltrim($e->right->value, '/') : null;
}

$root = realpath($argv[1]);
$files = [];
$it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($root, FilesystemIterator::SKIP_DOTS));
foreach ($it as $f) if (substr((string) $f, -4) === '.php' && !is_link((string) $f)) $files[] = substr((string) $f, strlen($root) + 1);
sort($files);
$map = [];
$ci = [];
foreach (Composer\ClassMapGenerator\ClassMapGenerator::createMap($root) as $class => $file) {
  $rel = substr(realpath($file), strlen($root) + 1);
  $map[$class] = $rel;
  $ci[strtolower($class)][] = $rel;
}
$parser = (new ParserFactory())->create(ParserFactory::PREFER_PHP7);
$edges = [];
$unparsed = [];
$caseOnly = [];
foreach ($files as $file) {
  try {
    $ast = $parser->parse(file_get_contents("$root/$file"));
  } catch (Throwable $e) {
    $unparsed[] = $file;
    continue;
  }
  $t = new NodeTraverser();
  $t->addVisitor(new NameResolver());
  $t->addVisitor(new ParentConnectingVisitor());
  $ast = $t->traverse($ast);
  $names = [];
  $targets = [];
  foreach ((new NodeFinder())->find($ast, fn () => true) as $n) {
    if ($n instanceof Node\Name\FullyQualified) {
      $p = $n->getAttribute('parent');
      if (!($p instanceof Node\Expr\FuncCall) && !($p instanceof Node\Expr\ConstFetch)) $names[] = $n->toString();
    } elseif ($n instanceof Node\Stmt\UseUse) {
      $p = $n->getAttribute('parent');
      $type = $n->type ?: $p->type;
      if ($type === Node\Stmt\Use_::TYPE_NORMAL) $names[] = ($p instanceof Node\Stmt\GroupUse ? $p->prefix->toString() . '\\' : '') . $n->name->toString();
    } elseif ($n instanceof Node\Expr\Include_ && ($rel = includedPath($n->expr, $file)) !== null) {
      $abs = realpath("$root/$rel");
      if ($abs && str_starts_with($abs, "$root/")) $targets[] = substr($abs, strlen($root) + 1);
    }
  }
  foreach (array_unique($names) as $name) {
    if (isset($map[$name])) $targets[] = $map[$name];
    elseif (isset($ci[strtolower($name)])) $caseOnly[] = "$file: $name";
  }
  foreach (array_unique($targets) as $to) if ($to !== $file) $edges[] = [$file, $to, false];
}
echo json_encode(['files' => $files, 'edges' => $edges, 'unparsed' => $unparsed, 'caseOnly' => $caseOnly]);
