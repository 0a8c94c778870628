/**
 * What other modules may ask of plans: the plan a user is on and plans by id or name.
 * Plans have no logic of their own yet, so these are the repository's reads.
 */
export {
  findPlan,
  findPlanByName,
  findPlanOfUser,
  insertPlan,
  listPlansWithUsers,
  setUserPlan,
  updatePlan,
} from './plans.repository';
