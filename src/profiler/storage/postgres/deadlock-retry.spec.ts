import { retryWhenAborted } from './deadlock-retry.js';

const aborted = (code: string) => Object.assign(new Error(`aborted ${code}`), { code });

describe('retryWhenAborted', () => {
  it('runs a transaction PostgreSQL aborted as a deadlock victim or a serialization failure again, until it commits', async () => {
    for (const code of ['40P01', '40001']) {
      let calls = 0;
      const result = await retryWhenAborted(
        async () => {
          calls++;
          if (calls < 3) throw aborted(code);
          return 'committed';
        },
        5,
        1,
      );
      expect([code, result, calls]).toEqual([code, 'committed', 3]);
    }
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw aborted('42P01');
    };
    await expect(retryWhenAborted(failing, 5, 1)).rejects.toThrow('aborted 42P01');
    expect(calls).toBe(1);
  });

  it("gives up after the last attempt with the server's error", async () => {
    let calls = 0;
    const deadlocked = async () => {
      calls++;
      throw aborted('40P01');
    };
    await expect(retryWhenAborted(deadlocked, 4, 1)).rejects.toThrow('aborted 40P01');
    expect(calls).toBe(4);
  });
});
