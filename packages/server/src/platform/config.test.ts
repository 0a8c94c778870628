import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to port 3000, role all and the embedded database', () => {
    const config = loadConfig({}, []);
    expect(config).toMatchObject({ port: 3000, role: 'all', databaseUrl: undefined, embeddedPgPort: 54329 });
  });

  it('takes the role from --role over SENDWELL_ROLE', () => {
    expect(loadConfig({ SENDWELL_ROLE: 'web' }, []).role).toBe('web');
    expect(loadConfig({ SENDWELL_ROLE: 'web' }, ['node', 'main.ts', '--role', 'worker']).role).toBe('worker');
    expect(loadConfig({}, ['node', 'main.ts', '--role=web']).role).toBe('web');
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' }, [])).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'not a url' }, [])).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({}, ['--role', 'mailer'])).toThrow(/SENDWELL_ROLE/);
  });

  it('reads booleans the way operators write them', () => {
    expect(loadConfig({ TRUST_PROXY: 'yes' }, []).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '0' }, []).trustProxy).toBe(false);
  });
});
