import type { Config } from '../config.js';

const USAGE = `usage: npm run devnet -- <command>
  serve                               run the devnet alone (Bitcoin Core JSON-RPC at /devnet/rpc,
                                      Counterparty API v2 at /devnet/counterparty/v2, control at /devnet/*)
  faucet ADDRESS SATS                 pay a confirmed UTXO to ADDRESS
  mine [BLOCKS]                       mine blocks (default 1)
  assets ISSUER QUANTITY_RAW [NAME] [--divisible]
                                      issue an asset
  credit ADDRESS ASSET QUANTITY_RAW   credit an address-level balance (XCP included)
  transfer ASSET FROM TO              move an asset's issuance rights to TO
  reorg DEPTH                         replace the last DEPTH blocks
  sync                                bring the market to the tip now
  utxos ADDRESS                       list an address's UTXOs
Actions talk to a running devnet or market at DEVNET_URL (default http://127.0.0.1:$PORT).`;

/** `npm run devnet -- …`: the standalone devnet server, or one control action against a running one. */
export async function runDevnetCommand(config: Config, args: string[]): Promise<void> {
  const [cmd = 'serve', ...rest] = args;
  if (cmd === 'serve') {
    const { serveStandaloneDevnet } = await import('./devnet-standalone.js');
    return serveStandaloneDevnet(config);
  }
  const base = process.env.DEVNET_URL ?? `http://127.0.0.1:${config.PORT}`;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((e: unknown) => {
      throw new Error(`cannot reach the devnet at ${base}: ${e instanceof Error ? e.message : String(e)}`);
    });
    const text = await res.text();
    process.stdout.write(`${text}\n`);
    if (!res.ok) process.exitCode = 1;
  };
  const need = (n: number) => {
    if (rest.length < n) {
      process.stderr.write(`${USAGE}\n`);
      process.exit(2);
    }
  };
  switch (cmd) {
    case 'faucet':
      need(2);
      return call('POST', '/devnet/faucet', { address: rest[0], amount_sats: Number(rest[1]) });
    case 'mine':
      return call('POST', '/devnet/mine', { blocks: Number(rest[0] ?? 1) });
    case 'assets': {
      need(2);
      const positional = rest.filter((a) => !a.startsWith('--'));
      return call('POST', '/devnet/assets', {
        issuer: positional[0],
        quantity_raw: positional[1],
        ...(positional[2] ? { asset: positional[2] } : {}),
        divisible: rest.includes('--divisible'),
      });
    }
    case 'credit':
      need(3);
      return call('POST', '/devnet/credit', { address: rest[0], asset: rest[1], quantity_raw: rest[2] });
    case 'transfer':
      need(3);
      return call('POST', '/devnet/transfer-issuance', { asset: rest[0], from: rest[1], to: rest[2] });
    case 'reorg':
      need(1);
      return call('POST', '/devnet/reorg', { depth: Number(rest[0]) });
    case 'sync':
      return call('POST', '/devnet/sync', {});
    case 'utxos':
      need(1);
      return call('GET', `/devnet/addresses/${encodeURIComponent(rest[0]!)}/utxos`);
    default:
      process.stderr.write(`${USAGE}\n`);
      process.exit(2);
  }
}
