import type { TPersonalData } from '../module';
import { eraseAddress, findAddressRecords } from './suppression.repository';

/**
 * The suppression module's part of a person's data (issue 48 §4): the address's
 * suppressions and soft bounces. Erasing them keeps the address unmailed all the same: its
 * hash stays in `erased_addresses`, which `notSuppressed` reads (R46).
 */
export const suppressionPersonalData: TPersonalData = {
  find: (db, userId, email) => findAddressRecords(db, userId, email),
  erase: (_platform, trx, userId, email) => eraseAddress(trx, userId, email),
};
