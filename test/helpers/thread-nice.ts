import fs from 'node:fs';

/** A thread's nice value (Linux: a nice value is a thread's), or null once it has ended. */
export function threadNice(tid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}
