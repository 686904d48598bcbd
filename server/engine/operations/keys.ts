import type { AgentCredential, KeyListItem } from '../accounts/accounts';
import type { GithubLink } from '../accounts/github-tokens';
import type { Static } from 'typebox';
import type { KeysQuery } from '../../../protocol/api/keys';
import type { Answer, Caller } from './call';
import { metered, page } from './metering';
import type { EngineParts } from './parts';

/** The caller's API keys and agent credentials (free). */
export class KeyOperations {
  constructor(private readonly e: EngineParts) {}

  /** Masked: the first and last four characters; newest first, a page at a time. */
  list(caller: Caller, q: Static<typeof KeysQuery> = { limit: 50, offset: 0 }): Promise<Answer<KeyListItem[]>> {
    return metered(this.e.accounts, caller, { operation: 'keys.list', cost: 0 }, async (meter) => {
      const { items, total } = await this.e.accounts.listKeysAsync(caller.userId, q.limit, q.offset);
      return meter.answer(items, { pagination: page(total, q.limit, q.offset) });
    });
  }

  /** A new primary key; the old one (and its agent credentials) stop working. */
  regenerate(caller: Caller) {
    return metered(this.e.accounts, caller, { operation: 'keys.regenerate', cost: 0 }, async (meter) =>
      meter.answer(await this.e.accounts.regenerateAsync(caller.userId), { message: 'store this key now: it is not shown again' }));
  }

  /** Disables one of the caller's keys; another user's key is a 404. */
  disable(caller: Caller, q: { key_id: string }): Promise<Answer<KeyListItem>> {
    return metered(this.e.accounts, caller, { operation: 'keys.disable', cost: 0 }, async (meter) =>
      meter.answer(await this.e.accounts.disableKeyAsync(caller.userId, q.key_id)));
  }

  /**
   * Links the caller's own GitHub token (checked with GitHub first): their private GitHub
   * repositories are probed and cloned with it. The server's GITHUB_TOKEN is the owner's alone.
   */
  linkGithub(caller: Caller, b: { token: string }): Promise<Answer<GithubLink>> {
    return metered(this.e.accounts, caller, { operation: 'keys.github', cost: 0 }, async (meter) =>
      meter.answer(await this.e.github.link(caller.userId, b.token), { message: 'GitHub token linked' }));
  }

  /** Whether the caller has linked a GitHub token (its last four characters, never the token). */
  githubStatus(caller: Caller): Promise<Answer<GithubLink>> {
    return metered(this.e.accounts, caller, { operation: 'keys.github', cost: 0 }, async (meter) => meter.answer(await this.e.github.status(caller.userId)));
  }

  /** Forgets the caller's linked GitHub token. */
  unlinkGithub(caller: Caller): Promise<Answer<GithubLink>> {
    return metered(this.e.accounts, caller, { operation: 'keys.github', cost: 0 }, async (meter) => meter.answer(await this.e.github.unlink(caller.userId)));
  }

  /** A short-lived credential from the caller's key; `rotate` disables the live ones first. */
  agentCredential(caller: Caller, q: { rotate?: boolean } | null): Promise<Answer<AgentCredential>> {
    return metered(this.e.accounts, caller, { operation: 'agent.credentials', cost: 0 }, async (meter) =>
      meter.answer(await this.e.accounts.agentCredentialAsync(caller, q?.rotate ?? false)));
  }
}
