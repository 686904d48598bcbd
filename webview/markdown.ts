/**
 * A small Markdown renderer for streamed research answers: it is re-run on the whole text as
 * chunks arrive, escapes all HTML first (the answer is untrusted text), and supports what answers
 * use: headings, paragraphs, lists, fenced and inline code, bold, italics, links. File references
 * (`src/a.ts:12`) that match a citation become links that open the file.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface FileRef { path: string; uri: string }

function inline(text: string, files: FileRef[]): string {
  // Code spans and links become placeholders first, so nothing below rewrites inside them.
  const held: string[] = [];
  const hold = (html: string) => `\u0000${held.push(html) - 1}\u0000`;
  let out = escapeHtml(text)
    .replace(/`([^`]+)`/g, (_, code: string) => hold(fileLink(code, code, files) ?? `<code>${code}</code>`))
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, href: string) => hold(fileLink(label, href, files) ?? label));
  // Bare references to cited files (`src/a.ts:12-20`) open them too.
  out = out.replace(/[\w@.-]+(?:\/[\w@.-]+)*\.\w+(?::\d+(?:-\d+)?)?/g, (ref) => (ref.includes('/') || ref.includes(':') ? fileLink(ref, ref, files) ?? ref : ref));
  out = out
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    // `_italics_` as CommonMark reads them: the underscores stand at word edges (snake_case stays).
    .replace(/(^|[^\p{L}\p{N}_])_([^_\s](?:[^_]*[^_\s])?)_(?![\p{L}\p{N}_])/gu, '$1<em>$2</em>');
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => held[Number(i)]);
}

/** A link for a cited file (`path`, `path:12`, `path#L12`); null when the text names none. */
function fileLink(label: string, target: string, files: FileRef[]): string | null {
  const m = /^(.+?)(?::(\d+)(?:-\d+)?|#L(\d+))?$/.exec(target.replace(/&amp;/g, '&'));
  if (!m) return null;
  const file = files.find((f) => f.path === m[1] || f.path.endsWith(`/${m[1]}`));
  if (!file) return null;
  const line = Number(m[2] ?? m[3] ?? 1);
  return `<a href="#" class="file-link" data-uri="${escapeHtml(file.uri)}" data-line="${line}">${label.includes('<') ? label : `<code>${label}</code>`}</a>`;
}

export function renderMarkdown(text: string, files: FileRef[] = []): string {
  const lines = text.split('\n');
  const html: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  let paragraph: string[] = [];
  const closeParagraph = () => {
    if (paragraph.length) html.push(`<p>${inline(paragraph.join(' '), files)}</p>`);
    paragraph = [];
  };
  const closeList = () => {
    if (list) html.push(`</${list}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      closeParagraph(); closeList();
      const body: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) body.push(lines[i]);
      html.push(`<pre><code>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (heading) {
      closeParagraph(); closeList();
      const level = heading[1].length + 2; // h3..h6 inside the panel
      html.push(`<h${level}>${inline(heading[2], files)}</h${level}>`);
    } else if (bullet || numbered) {
      closeParagraph();
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) { closeList(); html.push(`<${kind}>`); list = kind; }
      html.push(`<li>${inline((bullet ?? numbered)![1], files)}</li>`);
    } else if (!line.trim()) {
      closeParagraph(); closeList();
    } else {
      closeList();
      paragraph.push(line.trim());
    }
  }
  closeParagraph(); closeList();
  return html.join('\n');
}
