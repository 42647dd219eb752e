import Database from 'better-sqlite3';

/** A SQLite profile store as a test sees it through a connection of its own: its integrity check and stored tokens. */
export function inspectSqliteStore(file: string): { integrity: string; tokens: Map<string, number> } {
  const db = new Database(file, { fileMustExist: true });
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[])
      .map((r) => r.integrity_check)
      .join('; ');
    const rows = db.prepare('SELECT token, count(*) AS n FROM profile GROUP BY token').all() as {
      token: string;
      n: number;
    }[];
    return { integrity, tokens: new Map(rows.map((r) => [r.token, r.n])) };
  } finally {
    db.close();
  }
}
