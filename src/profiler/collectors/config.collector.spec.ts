import type { ModulesContainer } from '@nestjs/core';
import { AppConfig } from '../../config/app-config.js';
import { MASK } from '../../lifecycle/redaction/redactor.js';
import { CREDENTIALS } from '../../../test/fixtures/credential-variables.js';
import { ConfigCollector, type ConfigData } from './config.collector.js';

const VARIABLES: Record<string, [value: string, shown: string]> = {
  STRIPE_SK: ['sk_live_name_and_value', MASK],
  GITHUB_PAT: ['github_pat_11ABCDEF', MASK],
  APP_KEY: ['base64:abcdef', MASK],
  JWT_PRIVATE_KEY_FILE: ['/etc/keys/jwt.pem', MASK],
  SHOP_PRIVATE: ['x', MASK],
  SHOP_DB_PASSWORD: ['hunter2', MASK],
  PAYMENT_TOKEN_ID: ['t-1', MASK],
  // Named plainly, but the value says what it is.
  PAYMENT: ['sk_live_51HxAbCdEf', MASK],
  DEPLOY_BOT: ['xoxb-123456789012-abcdef', MASK],
  CI_HELPER: ['ghp_aBcDeFgHiJkLmNoPqRsT', MASK],
  AWS_ACCESS: ['AKIAIOSFODNN7EXAMPLE', MASK],
  SESSION_SAMPLE: ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln', MASK],
  SIGNING: ['-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----', MASK],
  // Credentials inside URLs: only the password (a DSN is masked whole by its name).
  SHOP_DATABASE_URL: ['postgres://shop:p@ss@db:5432/shop', `postgres://shop:${MASK}@db:5432/shop`],
  SHOP_CACHE_DSN: ['redis://:pw@cache:6379/0', MASK],
  SHOP_SEARCH_URL: [
    'https://search.example/?api_key=k1&index=shop',
    `https://search.example/?api_key=${MASK}&index=shop`,
  ],
  // Left as they are.
  SHOP_PUBLIC_URL: ['https://shop.example/', 'https://shop.example/'],
  SHOP_SKU_PREFIX: ['SK-', 'SK-'],
  SHOP_PATTERN: ['^a+$', '^a+$'],
  SHOP_EMPTY_PASSWORD: ['', ''],
};

/** The Configuration panel's environment table, as shown, for the variables named in `names`. */
function environmentShown(names: object): Record<string, string> {
  const collector = new ConfigCollector(
    AppConfig.fromEnv({ APP_ENV: 'test' }),
    new Map() as unknown as ModulesContainer,
  );
  const panel = collector.panel({ modules: [] } as unknown as ConfigData) as {
    environmentVariables: Array<{ key: string; value: string }>;
  };
  return Object.fromEntries(panel.environmentVariables.filter((v) => v.key in names).map((v) => [v.key, v.value]));
}

describe('ConfigCollector environment variables', () => {
  beforeAll(() => {
    for (const [name, [value]] of Object.entries(VARIABLES)) process.env[name] = value;
  });
  afterAll(() => {
    for (const name of Object.keys(VARIABLES)) delete process.env[name];
  });

  it('masks variables named like credentials, values shaped like keys and tokens, and URL passwords', () => {
    const shown = environmentShown(VARIABLES);
    expect(shown).toEqual(Object.fromEntries(Object.entries(VARIABLES).map(([name, [, value]]) => [name, value])));
  });

  it('shows none of thirty credential-looking variables, by name or by value, and keeps plain ones', () => {
    const planted = { ...CREDENTIALS, SHOP_PUBLIC_URL: 'https://shop.example/?page=2', AUTHOR: 'Ada' };
    Object.assign(process.env, planted);
    try {
      const shown = environmentShown(planted);
      expect(Object.keys(shown)).toHaveLength(Object.keys(planted).length);
      const leaked = Object.entries(shown).filter(([, value]) => /Zc\d\d/.test(`${value} ${decodeURI(value)}`));
      expect(leaked).toEqual([]);
      expect(shown).toMatchObject({
        DATABASE_URL_PLANTED: `postgres://shop:${MASK}@db:5432/shop`,
        DEPLOY_NOTE: `Bearer ${MASK}`,
        SHOP_PUBLIC_URL: 'https://shop.example/?page=2',
        AUTHOR: 'Ada',
      });
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
  });

  it('names the profile store without its credentials', () => {
    const collector = new ConfigCollector(
      AppConfig.fromEnv({ APP_ENV: 'test', PROFILER_DSN: 'postgres://prof:p@ss@db:5432/p?schema=s&sslpassword=x' }),
      new Map() as unknown as ModulesContainer,
    );
    expect(collector.lateCollect().profilerStore).toBe(`postgres://${MASK}@db:5432/p?schema=s&sslpassword=${MASK}`);
  });
});
