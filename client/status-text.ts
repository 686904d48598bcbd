/**
 * What the status bar says for a server status. Pure (no `vscode` import) so unit tests cover it.
 */
import type { LoupeStatus } from '../protocol/lsp';

export interface StatusText { text: string; tooltip: string; busy: boolean }

export function statusText(status: LoupeStatus | null): StatusText {
  if (!status) return { text: '$(loading~spin) Loupe starting…', tooltip: 'Loupe is starting its language server (the index opens in a separate process)', busy: true };
  const repos = status.repos;
  const failed = repos.filter((r) => r.phase === 'failed');
  const busy = repos.filter((r) => r.phase !== 'ready' && r.phase !== 'failed' && r.phase !== 'paused');
  const done = repos.reduce((n, r) => n + r.filesDone, 0);
  const total = repos.reduce((n, r) => n + r.filesTotal, 0);
  const files = repos.reduce((n, r) => n + (r.phase === 'ready' ? r.filesTotal : 0), 0);
  const sidecar = status.sidecarUrl ? `API: ${status.sidecarUrl}` : status.sidecarError ? `API not started: ${status.sidecarError}` : 'API sidecar off';
  const lines = repos.map((r) => `${r.name}: ${describePhase(r.phase)}${r.filesTotal ? ` (${r.filesDone}/${r.filesTotal} files)` : ''}${r.error ? ` — ${r.error}` : ''}`);
  const tooltip = [...lines, sidecar, 'Click for Loupe actions'].join('\n');
  if (status.paused && repos.some((r) => r.phase === 'paused')) return { text: '$(debug-pause) Loupe paused', tooltip, busy: false };
  if (busy.length) {
    // Files while they are parsed; the search index (vectors, docs) counts its own items after.
    const phase = busy.some((r) => r.phase === 'parsing' || r.phase === 'linking') ? 'indexing' : busy.some((r) => r.phase === 'derived') ? 'search index' : null;
    return { text: phase && total > 0 ? `$(sync~spin) Loupe ${phase} ${done}/${total}` : `$(sync~spin) Loupe ${describePhase(busy[0].phase)}…`, tooltip, busy: true };
  }
  if (failed.length) return { text: '$(error) Loupe', tooltip, busy: false };
  if (!repos.length) return { text: '$(eye) Loupe', tooltip: ['No folder open', sidecar].join('\n'), busy: false };
  return { text: `$(eye) Loupe ${formatCount(files)} files`, tooltip, busy: false };
}

export function describePhase(phase: LoupeStatus['repos'][number]['phase']): string {
  switch (phase) {
    case 'queued': return 'waiting to index';
    case 'scanning': return 'listing files';
    case 'parsing': return 'indexing files';
    case 'linking': return 'linking imports';
    case 'derived': return 'building search index';
    case 'ready': return 'up to date';
    case 'failed': return 'indexing failed';
    case 'paused': return 'paused';
  }
}

/** 1234 → "1.2k": short enough for the status bar. */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}

/** Percentage of files done across the status' repositories, for the first-index notification. */
export function progressPercent(status: LoupeStatus): number {
  const total = status.repos.reduce((n, r) => n + r.filesTotal, 0);
  const done = status.repos.reduce((n, r) => n + Math.min(r.filesDone, r.filesTotal), 0);
  return total ? Math.floor((done / total) * 100) : 0;
}
