/**
 * An HTTP client in a process of its own, for benches that report the server's CPU: when the
 * client runs in the bench's process, `process.cpuUsage()` counts its fetch (sending the body,
 * parsing the answer) as the server's. The child only sends what it is told over IPC and
 * answers with the status and body; the parent's CPU while it waits is the server's alone.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CHILD = `
process.on('message', async (m) => {
  try {
    const r = await fetch(m.url, { method: m.method, headers: m.headers, body: m.body });
    process.send({ id: m.id, status: r.status, text: await r.text() });
  } catch (e) {
    process.send({ id: m.id, status: 0, text: String(e) });
  }
});
process.on('disconnect', () => process.exit(0));
`;

/** Forks `source` (CommonJS) as a child process with IPC; `close` ends it and removes its file. */
export function forkScript(source: string): { child: ChildProcess; close(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpmkt-child-'));
  const file = path.join(dir, 'child.cjs');
  fs.writeFileSync(file, source);
  const child = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    child,
    close: () => {
      child.disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RemoteClient {
  request(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }>;
  close(): void;
}

export async function remoteClient(): Promise<RemoteClient> {
  const { child, close } = forkScript(CHILD);
  const waiting = new Map<number, (r: { status: number; text: string }) => void>();
  child.on('message', (m: { id: number; status: number; text: string }) => {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  let next = 0;
  return {
    request: (method, url, headers, body) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        child.send({ id, method, url, headers, body });
      }),
    close,
  };
}
