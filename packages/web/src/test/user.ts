import type { TUserInformation } from '@sendwell/contracts';

/** A signed-in user as `GET /api/user-information` describes them. */
export const buildUser = (overrides: Partial<TUserInformation> = {}): TUserInformation => ({
  id: 1,
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  free: false,
  plan: { id: 2, name: 'Pro', isFree: false },
  time_zone: 'UTC',
  role: 'user',
  unread_tickets: 0,
  credit: { totalCredit: 1000, usedCredit: 40 },
  billing: true,
  ...overrides,
});
