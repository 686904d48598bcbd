# The Ruby oracle: a folder's file-to-file graph as Ruby itself loads it, for bench/radius-exactness.ts.
#   ruby bench/oracles/ruby-graph.rb <dir>   (Debian: ruby)
# - Statements: Ruby's own parser (Ripper) finds every `require`, `require_relative` and `autoload` call whose
#   path is a string literal, or built from the file's place out of literals (File.expand_path("x", __dir__),
#   File.expand_path("../x", __FILE__), File.join(__dir__, "x")).
# - Resolution: `require_relative` and a path built from the file's place as Ruby expands it (".rb" added); `require`
#   and `autoload` by `$LOAD_PATH.resolve_feature_path` over the gem's load path (the `require_paths` of the .gemspec
#   at the folder's top, as RubyGems loads it, else lib/), then the folder itself (the standard library and other
#   gems are not in it, so they are no edge).
# Zeitwerk's constant lookups are not loads Ruby makes from the source: a Zeitwerk project is not compared.
# Prints {files, edges: [from, to, false][], unparsed} as JSON; a file Ripper rejects is in `unparsed`.
require 'ripper'
require 'json'

root = File.realpath(ARGV[0])
files = Dir.glob('**/*.rb', base: root).reject { |f| File.symlink?(File.join(root, f)) }.sort
# The gem's load path: the require_paths of the .gemspec at the folder's top, as RubyGems reads it, else lib/.
specs = Dir.glob('*.gemspec', base: root).sort.filter_map { |f| Dir.chdir(root) { Gem::Specification.load(f) } rescue nil }
paths = specs.flat_map(&:require_paths).uniq
paths = ['lib'] if paths.empty?
$LOAD_PATH.replace([*paths.map { |p| File.join(root, p) }, root].select { |d| Dir.exist?(d) })

def literal(node)
  return nil unless node.is_a?(Array) && node[0] == :string_literal
  parts = node[1]
  return '' if parts == [:string_content]
  return nil unless parts[0] == :string_content && parts.length == 2 && parts[1][0] == :@tstring_content
  parts[1][1]
end

def args_of(node)
  case node
  in [:args_add_block, list, *] then list
  in [:arg_paren, inner] then args_of(inner)
  in Array if node.all? { |a| a.is_a?(Array) } then node
  else []
  end
end

def dir_ref?(node) = node in [:var_ref, [:@kw, '__dir__', *]] | [:vcall, [:@ident, '__dir__', *]]

# A path string the argument names: a literal, or one built from the file's own place.
def path_of(arg, dir, file)
  if (s = literal(arg)) then return [:name, s] end
  return nil unless arg in [:method_add_arg, [:call, [:var_ref, [:@const, 'File', *]], _, [:@ident, meth, *]], args]
  a = args_of(args)
  return nil unless a.length == 2
  if meth == 'expand_path' && (s = literal(a[0]))
    return [:path, File.expand_path(s, dir)] if dir_ref?(a[1])
    return [:path, File.expand_path(s, file)] if a[1] in [:var_ref, [:@kw, '__FILE__', *]]
  end
  return [:path, File.join(dir, s)] if meth == 'join' && (s = literal(a[1])) && dir_ref?(a[0])
  nil
end

edges = []
unparsed = []
files.each do |rel|
  abs = File.join(root, rel)
  tree = Ripper.sexp(File.read(abs))
  if tree.nil?
    unparsed << rel
    next
  end
  dir = File.dirname(abs)
  targets = []
  resolve = lambda do |kind, arg|
    found = path_of(arg, dir, abs)
    return unless found
    type, s = found
    target =
      if type == :path || kind == 'require_relative'
        p = type == :path ? s : File.expand_path(s, dir)
        p = "#{p}.rb" unless p.end_with?('.rb')
        File.file?(p) ? p : nil
      else
        r = $LOAD_PATH.resolve_feature_path(s) rescue nil
        r && r[0] == :rb ? r[1] : nil
      end
    return unless target
    real = File.realpath(target)
    targets << real[(root.length + 1)..] if real.start_with?("#{root}/")
  end
  visit = lambda do |node|
    return unless node.is_a?(Array)
    name = nil
    args = nil
    case node
    in [:command, [:@ident, n, *], a] then name, args = n, args_of(a)
    in [:method_add_arg, [:fcall, [:@ident, n, *]], a] then name, args = n, args_of(a)
    else nil
    end
    if %w[require require_relative].include?(name) && args.length == 1
      resolve.call(name, args[0])
    elsif name == 'autoload' && args.length == 2
      resolve.call('require', args[1])
    end
    node.each { |c| visit.call(c) }
  end
  visit.call(tree)
  targets.uniq.each { |t| edges << [rel, t, false] unless t == rel }
end
puts JSON.generate({ files: files, edges: edges, unparsed: unparsed })
