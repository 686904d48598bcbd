/**
 * Plans and what they include. Values are local defaults: the owner of the machine gets the top
 * plan so their own sidecar never blocks them; configuration may change any of it.
 */
export type PlanName = 'FREE' | 'DEV' | 'PRO' | 'ENTERPRISE';

export interface Plan {
  name: PlanName;
  credits: number;
  maxRepos: number;
}

export const PLANS: Record<PlanName, Plan> = {
  FREE: { name: 'FREE', credits: 500, maxRepos: 3 },
  DEV: { name: 'DEV', credits: 5_000, maxRepos: 10 },
  PRO: { name: 'PRO', credits: 50_000, maxRepos: 50 },
  ENTERPRISE: { name: 'ENTERPRISE', credits: 10_000_000, maxRepos: 1_000 },
};

export const planOf = (name: string): Plan => PLANS[name as PlanName] ?? PLANS.FREE;

const RANK: Record<PlanName, number> = { FREE: 0, DEV: 1, PRO: 2, ENTERPRISE: 3 };

/** True when `plan` is `minimum` or above. */
export const planAtLeast = (plan: string, minimum: PlanName): boolean => RANK[planOf(plan).name] >= RANK[minimum];
