// A server process's CPU time from /proc/<pid>/stat (utime + stime): every thread of the process counted (the event
// loop, V8's GC and compiler threads, libuv's pool, the store's worker threads), child processes not.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** Clock ticks a second of /proc's CPU times (USER_HZ). */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;

/** The process's CPU time so far, in µs (a resolution of one tick, 10 ms at USER_HZ 100). */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (which may hold spaces, hence the last ") "): state is the first field, utime the 12th.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6;
}
