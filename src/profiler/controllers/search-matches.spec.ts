import { queryTerms } from '../storage/search/search-words.js';
import { matchExcerpt } from './search-matches.js';

const texts = [
  { panel: 'request', label: 'Request', text: 'cart_add' },
  { panel: 'logs', label: 'Logs', text: 'Executed query in 1.2 ms: delete from "cart_lines" where "cart_id" = $1' },
  { panel: 'exception', label: 'Exception', text: 'CartQuantityException: Only 3 left in stock.' },
];
const render = (excerpt: ReturnType<typeof matchExcerpt>) =>
  excerpt && `${excerpt.label}: ${excerpt.parts.map((p) => (p.mark ? `[${p.text}]` : p.text)).join('')}`;

describe('matchExcerpt', () => {
  it('shows the text holding every term, its words marked, with the panel it comes from', () => {
    expect(render(matchExcerpt(texts, queryTerms('delete cart_lines')!))).toBe(
      'Logs: Executed query in 1.2 ms: [delete] from "[cart_lines]" where "cart_id" = $1',
    );
    expect(render(matchExcerpt(texts, queryTerms('quantity stock')!))).toBe(
      'Exception: [CartQuantityException]: Only 3 left in [stock].',
    );
    expect(matchExcerpt(texts, queryTerms('cart*')!)?.panel).toBe('request');
  });

  it('prefers the text with the most terms, and is null when none has any', () => {
    expect(render(matchExcerpt(texts, queryTerms('stock cart_id zzz')!))).toBe(
      'Logs: Executed query in 1.2 ms: delete from "cart_lines" where "[cart_id]" = $1',
    );
    expect(matchExcerpt(texts, queryTerms('nowhere')!)).toBeNull();
  });

  it('cuts a long text around the first match, at word boundaries', () => {
    const long = [{ panel: 'logs', label: 'Logs', text: `${'lorem ipsum '.repeat(20)}needle ${'dolor '.repeat(60)}` }];
    const excerpt = matchExcerpt(long, queryTerms('needle')!)!;
    const shown = excerpt.parts.map((p) => p.text).join('');
    expect(excerpt.parts[0]).toEqual({ text: '…', mark: false });
    expect(excerpt.parts.filter((p) => p.mark)).toEqual([{ text: 'needle', mark: true }]);
    expect(shown).toMatch(/^…(lorem|ipsum) /);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(182);
  });
});
