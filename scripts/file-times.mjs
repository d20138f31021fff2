// A node:test reporter that sums each file's top-level test durations and writes one line per
// file ("<ms>\t<file>"), slowest first: scripts/test.mjs prints the slowest files at the end of a
// whole-suite run, so the suite's time (CI has 30 minutes) is kept where it is visible.
export default async function* fileTimes(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      perFile.set(event.data.file, (perFile.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  for (const [file, ms] of [...perFile].sort((a, b) => b[1] - a[1])) yield `${Math.round(ms)}\t${file}\n`;
}
