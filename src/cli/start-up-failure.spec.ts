import { ConfigurationError } from '../config/configuration.error.js';
import { describeStartUpFailure } from './start-up-failure.js';

describe('describeStartUpFailure', () => {
  it('is the one line of a configuration mistake, without a stack', () => {
    const text = describeStartUpFailure(
      new ConfigurationError('DATABASE_URL', 'cannot open postgres://shop:PW@db/shop'),
    );
    expect(text).toBe('DATABASE_URL: cannot open postgres://shop:******@db/shop\n');
  });

  it('keeps a line break in a problem out of the line', () => {
    expect(describeStartUpFailure(new ConfigurationError('VAR_DIR', 'first\n  second'))).toBe(
      'VAR_DIR: first second\n',
    );
  });

  it('joins several mistakes on one line', () => {
    const error = new ConfigurationError([
      { variable: 'APP_DEBUG', problem: 'must be a flag' },
      { variable: 'PORT', problem: 'must be a number' },
    ]);
    expect(describeStartUpFailure(error)).toBe('APP_DEBUG: must be a flag; PORT: must be a number\n');
  });

  it('keeps the stack of anything else (a defect), redacted', () => {
    const text = describeStartUpFailure(new Error('connect to postgres://shop:PW@db failed'));
    expect(text).toMatch(/^Error: connect to postgres:\/\/shop:\*{6}@db failed\n {4}at /);
    expect(text).not.toContain('PW');
  });
});
