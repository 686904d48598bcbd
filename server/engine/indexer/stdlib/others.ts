/**
 * The standard libraries of the other languages the indexer resolves (Python and Go: index.ts), by the
 * name an unresolved import is stored under: never a project's dependency.
 */

const RUST = new Set(['std', 'core', 'alloc', 'proc_macro', 'test']);

/** The JDK's own packages (java.base and the other modules a JDK ships). */
const JAVA = /^(java|javax|jdk|sun|com\.sun|org\.w3c\.dom|org\.xml\.sax|org\.ietf\.jgss)(\.|$)/;

/** .NET's base class library namespaces. */
const CSHARP = /^(System|Microsoft\.(Win32|CSharp|VisualBasic|Extensions\.Primitives))(\.|$)/;

/** ISO C and POSIX headers; C++'s standard headers have no extension (`<vector>`, `<cstdio>`). */
const C_HEADERS = new Set([
  'assert.h', 'complex.h', 'ctype.h', 'errno.h', 'fenv.h', 'float.h', 'inttypes.h', 'iso646.h', 'limits.h', 'locale.h',
  'math.h', 'setjmp.h', 'signal.h', 'stdalign.h', 'stdarg.h', 'stdatomic.h', 'stdbool.h', 'stddef.h', 'stdint.h',
  'stdio.h', 'stdlib.h', 'stdnoreturn.h', 'string.h', 'tgmath.h', 'threads.h', 'time.h', 'uchar.h', 'wchar.h', 'wctype.h',
  'aio.h', 'arpa/inet.h', 'cpio.h', 'dirent.h', 'dlfcn.h', 'fcntl.h', 'fmtmsg.h', 'fnmatch.h', 'ftw.h', 'glob.h', 'grp.h',
  'iconv.h', 'langinfo.h', 'libgen.h', 'monetary.h', 'mqueue.h', 'ndbm.h', 'net/if.h', 'netdb.h', 'netinet/in.h',
  'netinet/tcp.h', 'nl_types.h', 'poll.h', 'pthread.h', 'pwd.h', 'regex.h', 'sched.h', 'search.h', 'semaphore.h',
  'spawn.h', 'strings.h', 'stropts.h', 'syslog.h', 'tar.h', 'termios.h', 'trace.h', 'ulimit.h', 'unistd.h', 'utime.h',
  'utmpx.h', 'wordexp.h', 'alloca.h', 'malloc.h', 'endian.h', 'byteswap.h', 'features.h', 'getopt.h', 'err.h', 'link.h',
  'elf.h', 'execinfo.h', 'ifaddrs.h', 'memory.h', 'paths.h', 'shadow.h', 'sysexits.h', 'values.h', 'windows.h',
]);

/**
 * Ruby's standard library (what `require` finds without a gem in the Gemfile), by first folder: Ruby 3.1's
 * lib/ruby/3.1.0 and its extensions, the features the interpreter provides itself (`require 'fiber'`, 'enumerator',
 * 'rational', 'complex', 'thread'), and what it shipped before as such and bundles now (minitest, test/unit, rexml,
 * rss, webrick); not the gems it only bundles (rake, rbs, debug), which a project declares.
 */
const RUBY = new Set([
  'abbrev', 'base64', 'benchmark', 'bigdecimal', 'cgi', 'complex', 'continuation', 'coverage', 'csv', 'date',
  'delegate', 'did_you_mean', 'digest', 'drb', 'enc', 'English', 'enumerator', 'erb', 'error_highlight', 'etc', 'expect',
  'fcntl', 'fiber', 'fiddle', 'fileutils', 'find', 'forwardable', 'getoptlong', 'io', 'ipaddr', 'irb', 'json', 'kconv',
  'logger', 'matrix', 'mkmf', 'monitor', 'mutex_m', 'nkf', 'objspace', 'observer', 'open-uri', 'open3', 'openssl',
  'optionparser', 'optparse', 'ostruct', 'pathname', 'pp', 'prettyprint', 'prime', 'pstore', 'psych',
  'pty', 'racc', 'rational', 'rbconfig', 'rdoc', 'readline', 'reline', 'resolv', 'resolv-replace', 'rexml',
  'rinda', 'ripper', 'rss', 'ruby2_keywords', 'rubygems', 'securerandom', 'set', 'shellwords', 'singleton', 'socket',
  'stringio', 'strscan', 'syslog', 'tempfile', 'thread', 'time', 'timeout', 'tmpdir', 'tsort', 'un',
  'unicode_normalize', 'uri', 'weakref', 'webrick', 'yaml', 'zlib', 'bundler', 'minitest', 'test',
]);

/**
 * Under net/ only Ruby's own protocols (net-http, net-ftp, net-imap, net-pop, net-smtp, net-protocol): `net/ssh`,
 * `net/scp`, `net/http/persistent` are gems (net-ssh, net-scp, net-http-persistent).
 */
const RUBY_NET = /^net\/(https?|ftp|imap|pop|smtp|protocol)(\.rb)?$/;

/** A required path (`json`, `net/http`, `digest/sha2`) that Ruby itself provides. */
const isRubyStdlib = (required: string) => {
  const first = required.split('/')[0].replace(/\.(rb|so)$/, '');
  return first === 'net' ? RUBY_NET.test(required) : RUBY.has(first);
};

/** PHP's own classes that `use` may name without a namespace (`use Exception;`). */
const PHP = /^(Exception|ErrorException|Error|TypeError|ValueError|ArgumentCountError|ArithmeticError|DivisionByZeroError|Throwable|Stringable|Traversable|Iterator|IteratorAggregate|ArrayAccess|Countable|Serializable|JsonSerializable|Closure|Generator|WeakMap|WeakReference|stdClass|ArrayObject|ArrayIterator|SplObjectStorage|DateTime|DateTimeImmutable|DateTimeInterface|DateTimeZone|DateInterval|ReflectionClass|ReflectionMethod|ReflectionProperty|ReflectionFunction|ReflectionNamedType|PDO|PDOException|PDOStatement|(InvalidArgument|Logic|Runtime|Domain|Length|OutOf\w+|Overflow|Range|Underflow|UnexpectedValue|BadFunctionCall|BadMethodCall|Json)Exception)$/;

export function isOtherStandardLibrary(language: string | null, name: string): boolean {
  switch (language) {
    case 'rust': return RUST.has(name.split('::')[0]);
    case 'java': return JAVA.test(name);
    case 'csharp': return CSHARP.test(name);
    case 'c': case 'cpp': return C_HEADERS.has(name) || name.startsWith('sys/') || !name.includes('.');
    case 'ruby': return isRubyStdlib(name);
    case 'php': return PHP.test(name);
    default: return false;
  }
}
