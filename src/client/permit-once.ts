import type { GovernorPermit } from './governor-types.js';

/**
 * A governor's permit whose `settle` or `abandon`, whichever is called first, acts; every later
 * call does nothing (a slot is given back or counted once).
 */
export function permitOnce(bucket: string | null, actions: Pick<GovernorPermit, 'settle' | 'abandon'>): GovernorPermit {
  let open = true;
  return {
    bucket,
    settle: (answer) => {
      if (!open) return;
      open = false;
      actions.settle(answer);
    },
    abandon: (reachedService) => {
      if (!open) return;
      open = false;
      actions.abandon(reachedService);
    },
  };
}
