const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const COMMIT = /^\s*(commit|end)\b/i;
const ROLLBACK = /^\s*rollback\b(?!\s+to\b)/i;

/** The statements of one transaction, by their index in the request's list. */
export interface TransactionSpan {
  first: number;
  /** The commit or rollback; the last query of the request when the transaction never ended. */
  last: number;
  outcome: 'committed' | 'rolled back' | 'not ended';
  /** The first caller found among its statements: the code that ran the transaction. */
  caller: string | null;
}

/**
 * The transactions of a request's query list, `begin` to `commit` or `rollback`. Kysely runs these three itself,
 * through the driver and not a query builder, so the recorder's plugin never sees them and they have no caller of
 * their own (caller.ts): they are shown with the caller of the statements they enclose.
 */
export function transactionSpans(sqls: readonly string[], callers: readonly (string | null)[]): TransactionSpan[] {
  const spans: TransactionSpan[] = [];
  let open: number | null = null;
  const close = (last: number, outcome: TransactionSpan['outcome']) => {
    const caller = callers.slice(open! + 1, last + 1).find((c) => c !== null) ?? null;
    spans.push({ first: open!, last, outcome, caller });
    open = null;
  };
  sqls.forEach((sql, i) => {
    if (BEGIN.test(sql)) {
      if (open !== null) close(i - 1, 'not ended');
      open = i;
    } else if (open !== null && COMMIT.test(sql)) close(i, 'committed');
    else if (open !== null && ROLLBACK.test(sql)) close(i, 'rolled back');
  });
  if (open !== null) close(sqls.length - 1, 'not ended');
  return spans;
}
