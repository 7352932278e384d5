import type { ApplicationsTable } from '../../db/schema.js';
import type { Transitions } from '../../shared/state-machine.js';

export type ApplicationStatus = ApplicationsTable['status'];

/** Underwriting: a `NEW` application is reviewed, then approved or rejected; a decision is final. */
export const TRANSITIONS: Transitions<ApplicationStatus> = {
  NEW: ['IN_REVIEW', 'APPROVED', 'REJECTED'],
  IN_REVIEW: ['APPROVED', 'REJECTED'],
  APPROVED: [],
  REJECTED: [],
};
