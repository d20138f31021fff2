// A node:test reporter for finding the suite's slow files: it prints nothing, and at the end
// merges into the JSON file FILE_TIMES_OUT, per `backend:file`, the wall time from the file's
// first event reaching the runner to its last (set up and tests; not the process start).
import fs from 'node:fs';

export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now();
    const f = files.get(file) ?? { first: now, last: now };
    f.last = now;
    files.set(file, f);
  }
  const out = process.env.FILE_TIMES_OUT;
  if (out) {
    const prev = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : {};
    for (const [file, f] of files) prev[`${process.env.TEST_BACKEND ?? ''}:${file.replace(process.cwd() + '/', '')}`] = f.last - f.first;
    fs.writeFileSync(out, JSON.stringify(prev, null, 1));
  }
  yield '';
}
