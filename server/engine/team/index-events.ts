/**
 * What an engine hears of changes to an index it does not write (a team server's API node, whose
 * index the workers write on PostgreSQL): `team/notify.ts`'s listener implements it over
 * LISTEN/NOTIFY. The engine drops what it holds of a repository when told it changed, and everything
 * when told to reset (the listener lost its connection: changes may have gone unheard).
 */
export interface IndexChangeListener {
  /** The repository's index changed (files, imports, vectors or docs): drop what is held of it. */
  changed(repoId: string): void;
  /** Changes may have been missed: drop everything held. */
  reset(): void;
}

export interface IndexEvents {
  /**
   * True while every change is heard (the listening connection is up and LISTENing): a cache may be
   * used without asking the database whether it is current, until `changed` or `reset` says otherwise.
   */
  readonly live: boolean;
  /** Registers a listener; returns its removal. */
  subscribe(listener: IndexChangeListener): () => void;
}
