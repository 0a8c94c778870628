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
    expect(loadConfig({ TEST_INBOX: 'no' }, []).testInbox).toBeNull();
    expect(loadConfig({ ALLOW_LOOPBACK_SMTP: '1' }, []).allowLoopbackSmtp).toBe(true);
  });

  it('takes the trusted proxies as addresses and CIDRs, and trusts none by default (R26)', () => {
    expect(loadConfig({}, []).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }, []).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, ::1,192.168.1.1 ' }, []).trustProxy).toEqual([
      '10.0.0.0/8',
      '::1',
      '192.168.1.1',
    ]);
    expect(loadConfig({ TRUST_PROXY: 'loopback,fd00::/8,172.16.0.0/255.240.0.0' }, []).trustProxy).toEqual([
      'loopback',
      'fd00::/8',
      '172.16.0.0/255.240.0.0',
    ]);
  });

  it('refuses TRUST_PROXY=true, telling the operator to list the proxies', () => {
    for (const value of ['true', 'yes', '1']) {
      expect(() => loadConfig({ TRUST_PROXY: value }, [])).toThrow(/TRUST_PROXY: .*list the addresses or CIDRs/);
    }
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' }, [])).toThrow(/TRUST_PROXY: 10\.0\.0\.0\/33 is not/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' }, [])).toThrow(/TRUST_PROXY/);
  });

  it('bounds slow clients and waits for a database connection only so long (R25)', () => {
    expect(loadConfig({}, [])).toMatchObject({
      dbAcquireTimeoutMs: 10_000,
      dbIdleInTransactionTimeoutMs: 60_000,
      http: {
        requestTimeoutMs: 3_600_000,
        headersTimeoutMs: 20_000,
        idleTimeoutMs: 60_000,
        keepAliveTimeoutMs: 72_000,
      },
    });
    expect(loadConfig({ DB_ACQUIRE_TIMEOUT_SECONDS: '0.5' }, []).dbAcquireTimeoutMs).toBe(500);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_SECONDS: '0' }, [])).toThrow(/HTTP_REQUEST_TIMEOUT_SECONDS/);
  });
});
