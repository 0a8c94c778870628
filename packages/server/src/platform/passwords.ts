import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the package exports it as a const enum, which isolated modules cannot read.
const ARGON2ID = 2;

// OWASP's argon2id baseline (19 MiB, 2 passes); about 30 ms here.
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

// Checked when no such user exists, so a wrong email costs as long as a wrong password
// and response times do not tell which addresses have accounts.
let dummyHash: Promise<string> | undefined;

export const verifyPassword = async (storedHash: string | undefined, password: string): Promise<boolean> => {
  if (!storedHash) {
    dummyHash ??= hashPassword('sendwell-timing-equaliser');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
};
