/**
 * The jobs that must run on exactly one instance at a time, by role (a job names its role in
 * `Job.role`). Each role is elected on its own, so two instances can share the work.
 */
export const LEADER_ROLES = ['indexer', 'recovery', 'webhook-dispatcher', 'policy-offers-upkeep', 'event-log-pruning'] as const;

export type LeaderRole = (typeof LEADER_ROLES)[number];
