/**
 * Plans and what they include. Values are local defaults: the owner of the machine gets the top
 * plan so their own sidecar never blocks them; configuration (`AccountsConfig.plans`) may change any
 * of it per engine.
 */
export type PlanName = 'FREE' | 'DEV' | 'PRO' | 'ENTERPRISE';
import type { DocDepth } from '../docs/depth';

export interface Plan {
  name: PlanName;
  /** Credits the plan grants (the balance is this minus the ledger, unless the user has its own limit). */
  credits: number;
  maxRepos: number;
  /** Documentation depth presets (`fields`) the plan may ask for. */
  depths: DocDepth[];
  /** Whether symbols (top functions/variables) are included in blueprints and hits. */
  symbols: boolean;
}

export const PLANS: Record<PlanName, Plan> = {
  FREE: { name: 'FREE', credits: 500, maxRepos: 3, depths: ['basic'], symbols: false },
  DEV: { name: 'DEV', credits: 5_000, maxRepos: 10, depths: ['basic', 'summary'], symbols: true },
  PRO: { name: 'PRO', credits: 50_000, maxRepos: 50, depths: ['basic', 'summary', 'full'], symbols: true },
  ENTERPRISE: { name: 'ENTERPRISE', credits: 10_000_000, maxRepos: 1_000, depths: ['basic', 'summary', 'full'], symbols: true },
};

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

export const planOf = (name: string, table: Record<PlanName, Plan> = PLANS): Plan => table[name as PlanName] ?? table.FREE;

const RANK: Record<PlanName, number> = { FREE: 0, DEV: 1, PRO: 2, ENTERPRISE: 3 };

/** True when `plan` is `minimum` or above. */
export const planAtLeast = (plan: string, minimum: PlanName): boolean => RANK[planOf(plan).name] >= RANK[minimum];

/** The lowest plan that satisfies `test`, for messages that name the plan needed. */
export function lowestPlanWith(table: Record<PlanName, Plan>, test: (p: Plan) => boolean): PlanName | null {
  return PLAN_NAMES.find((n) => test(table[n])) ?? null;
}

/** Merges configuration over the defaults (unknown plan names are ignored by the type). */
export function planTable(overrides: Partial<Record<PlanName, Partial<Omit<Plan, 'name'>>>> = {}): Record<PlanName, Plan> {
  const table = {} as Record<PlanName, Plan>;
  for (const name of PLAN_NAMES) table[name] = { ...PLANS[name], ...overrides[name], name };
  return table;
}
