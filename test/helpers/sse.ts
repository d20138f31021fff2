/**
 * A Server-Sent Events client over real HTTP for the stream tests: frames as they arrive
 * (id, event, parsed data), comments counted, closable at any point.
 */
import http from 'node:http';

export interface SseFrame {
  id: string | null;
  event: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body of a refusal (not 200). */
  body: any;
  frames: SseFrame[];
  comments: number;
  closed: Promise<void>;
  /** True once the connection closed (either side). */
  ended: boolean;
  close(): void;
}

/** `onFrame` is called for each frame as it is parsed (frames can arrive with the headers, before the promise resolves). */
export function openSse(url: string, headers: Record<string, string> = {}, onFrame?: (f: SseFrame, client: SseClient) => void): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let closedResolve!: () => void;
      const closed = new Promise<void>((r) => (closedResolve = r));
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: null,
        frames: [],
        comments: 0,
        closed,
        ended: false,
        close: () => req.destroy(),
      };
      res.on('close', () => {
        client.ended = true;
        closedResolve();
      });
      res.on('error', () => closedResolve());
      if (client.status !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          client.body = text ? JSON.parse(text) : null;
          resolve(client);
        });
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const f: SseFrame = { id: null, event: 'message', data: undefined };
          let isFrame = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) client.comments++;
            else if (line.startsWith('id: ')) f.id = line.slice(4);
            else if (line.startsWith('event: ')) f.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              f.data = JSON.parse(line.slice(6));
              isFrame = true;
            }
          }
          if (isFrame) {
            client.frames.push(f);
            onFrame?.(f, client);
          }
        }
      });
      resolve(client);
    });
    req.on('error', reject);
  });
}
