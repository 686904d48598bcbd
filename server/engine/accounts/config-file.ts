import fs from 'node:fs';
import path from 'node:path';
import { LoupeError } from '../errors';
import { PLAN_NAMES, type PlanName } from './plans';
import { DOC_DEPTHS } from '../docs/depth';
import type { AccountsConfig } from './accounts';

/**
 * Reads plans, costs and the owner's account from a JSON file (DATA_DIR/accounts.json), e.g.
 * `{"owner": {"credits": 1000000}, "plans": {"FREE": {"maxRepos": 5}}, "costs": {"search.run": 3}, "signupPlan": "DEV"}`.
 * A missing file is the defaults; a malformed one is an error naming the field, never a silent default.
 */
export function loadAccountsConfig(file: string): AccountsConfig {
  if (!fs.existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw bad(file, '', `is not valid JSON (${(error as Error).message})`);
  }
  return parseAccountsConfig(raw, file);
}

export function parseAccountsConfig(raw: unknown, source = 'accounts config'): AccountsConfig {
  const obj = record(raw, source, '');
  const out: AccountsConfig = {};
  for (const key of Object.keys(obj)) {
    if (!['plans', 'costs', 'owner', 'signupPlan', 'agentCredentialTtlMs', 'maxLiveAgentCredentials', 'historyRetentionDays', 'sharedFolders'].includes(key)) throw bad(source, key, 'is not a known field');
  }
  if (obj.plans !== undefined) {
    const plans = record(obj.plans, source, 'plans');
    out.plans = {};
    for (const [name, value] of Object.entries(plans)) {
      const plan = planName(name, source, `plans.${name}`);
      const fields = record(value, source, `plans.${name}`);
      const entry: NonNullable<AccountsConfig['plans']>[PlanName] = {};
      for (const [field, v] of Object.entries(fields)) {
        const at = `plans.${name}.${field}`;
        if (field === 'credits' || field === 'maxRepos') entry[field] = count(v, source, at);
        else if (field === 'symbols') {
          if (typeof v !== 'boolean') throw bad(source, at, 'must be true or false');
          entry.symbols = v;
        } else if (field === 'depths') {
          if (!Array.isArray(v) || !v.every((d) => (DOC_DEPTHS as readonly unknown[]).includes(d))) throw bad(source, at, `must be a list of ${DOC_DEPTHS.map((d) => `"${d}"`).join(', ')}`);
          entry.depths = v;
        } else throw bad(source, at, 'is not a known field (credits, maxRepos, depths, symbols)');
      }
      out.plans[plan] = entry;
    }
  }
  if (obj.costs !== undefined) {
    out.costs = {};
    for (const [op, v] of Object.entries(record(obj.costs, source, 'costs'))) out.costs[op] = count(v, source, `costs.${op}`);
  }
  if (obj.owner !== undefined) {
    const owner = record(obj.owner, source, 'owner');
    out.owner = {};
    for (const [field, v] of Object.entries(owner)) {
      if (field === 'plan') out.owner.plan = planName(v, source, 'owner.plan');
      else if (field === 'credits') out.owner.credits = count(v, source, 'owner.credits');
      else throw bad(source, `owner.${field}`, 'is not a known field (plan, credits)');
    }
  }
  if (obj.signupPlan !== undefined) out.signupPlan = planName(obj.signupPlan, source, 'signupPlan');
  if (obj.agentCredentialTtlMs !== undefined) out.agentCredentialTtlMs = count(obj.agentCredentialTtlMs, source, 'agentCredentialTtlMs');
  if (obj.maxLiveAgentCredentials !== undefined) out.maxLiveAgentCredentials = count(obj.maxLiveAgentCredentials, source, 'maxLiveAgentCredentials');
  if (obj.historyRetentionDays !== undefined) out.historyRetentionDays = count(obj.historyRetentionDays, source, 'historyRetentionDays');
  if (obj.sharedFolders !== undefined) {
    if (!Array.isArray(obj.sharedFolders)) throw bad(source, 'sharedFolders', 'must be a list of {"path": "/absolute/folder", "users": ["email" or "*"]}');
    out.sharedFolders = obj.sharedFolders.map((entry, i) => {
      const at = `sharedFolders[${i}]`;
      const share = record(entry, source, at);
      for (const field of Object.keys(share)) if (field !== 'path' && field !== 'users') throw bad(source, `${at}.${field}`, 'is not a known field (path, users)');
      if (typeof share.path !== 'string' || !path.isAbsolute(share.path)) throw bad(source, `${at}.path`, 'must be an absolute folder path');
      if (!Array.isArray(share.users) || !share.users.length || !share.users.every((u) => typeof u === 'string' && (u === '*' || /^[^@\s]+@[^@\s]+$/.test(u)))) {
        throw bad(source, `${at}.users`, 'must be a non-empty list of email addresses, or "*" for every user');
      }
      return { path: share.path, users: share.users as string[] };
    });
  }
  return out;
}

const bad = (source: string, field: string, rule: string) =>
  new LoupeError('VALIDATION_FAILED', `${source}: ${field ? `${field}: ` : ''}${rule}`, { field });

function record(v: unknown, source: string, at: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(source, at, 'must be an object');
  return v as Record<string, unknown>;
}

function count(v: unknown, source: string, at: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw bad(source, at, 'must be a whole number >= 0');
  return v;
}

function planName(v: unknown, source: string, at: string): PlanName {
  if (typeof v !== 'string' || !PLAN_NAMES.includes(v as PlanName)) throw bad(source, at, `must be one of ${PLAN_NAMES.join(', ')}`);
  return v as PlanName;
}
