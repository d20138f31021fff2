import Database from 'better-sqlite3';
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
const d = new Database('/tmp/cpmkt-sim-a6A9VQ/devnet.sqlite', { readonly: true });
for (const h of [164, 169]) {
  const r = d.prepare('select txs_json from devnet_blocks where height=?').get(h) as any;
  const txs = JSON.parse(r.txs_json) as string[];
  console.log('block', h, txs.length);
  txs.forEach((x, i) => {
    const t = Transaction.fromRaw(hex.decode(x), { allowUnknownOutputs: true, allowUnknownInputs: true, disableScriptCheck: true });
    const ins = Array.from({ length: t.inputsLength }, (_, k) => { const inp = t.getInput(k); return hex.encode(inp.txid!).slice(0, 8) + ':' + inp.index; });
    const op = Array.from({ length: t.outputsLength }, (_, k) => t.getOutput(k)).some((o) => o.script && o.script[0] === 0x6a);
    console.log(i, t.id.slice(0, 8), op ? 'OP_RET' : '', 'in', ins.join(','));
  });
}
