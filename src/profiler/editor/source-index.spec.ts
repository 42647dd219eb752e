import { AppConfig } from '../../config/app-config.js';
import { SourceIndex } from './source-index.js';

describe('SourceIndex', () => {
  const index = new SourceIndex(AppConfig.fromEnv({ APP_ENV: 'test' }));

  it('finds where a class and its method are declared, written with :: or a dot', () => {
    const place = index.symbol('SourceIndex::symbol');
    expect(place).toEqual({ file: 'src/profiler/editor/source-index.ts', line: expect.any(Number) });
    expect(index.symbol('SourceIndex.symbol')).toEqual(place);
    expect(index.symbol('SourceIndex')!.line).toBeLessThan(place!.line);
  });

  it('falls back on the class for a method it cannot find, and knows nothing of undeclared names', () => {
    expect(index.symbol('SourceIndex::noSuchMethod')).toEqual(index.symbol('SourceIndex'));
    expect(index.symbol('NoSuchClass::run')).toBeNull();
    expect(index.symbol('not a symbol')).toBeNull();
  });

  it('finds a template under views/, and nothing for names that leave it', () => {
    expect(index.template('layouts/main')).toEqual({ file: 'views/layouts/main.hbs', line: 1 });
    expect(index.template('../package')).toBeNull();
    expect(index.template('no/such/view')).toBeNull();
  });
});
