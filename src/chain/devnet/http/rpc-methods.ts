/**
 * The Bitcoin Core RPC methods the devnet answers, over the engine's
 * RPC-shaped views and writes. Validation and error codes follow Core, so a
 * client written against bitcoind (our production adapter included) meets the
 * same answers here.
 */
import { decodeAddress } from '../../../bitcoin/address.js';
import { TxRejected } from '../../ports.js';
import type { Devnet } from '../devnet.js';
import { DevnetRpcError } from '../rpc-views.js';
import { decodeTx } from '../tx-decode.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_METHOD_NOT_FOUND, RpcFault, type RpcDispatch } from './json-rpc.js';
import { scantxoutset } from './scan-txoutset.js';
import { bindArgs, parseHash, parseInt32, verbosityOf, type ArgSpec } from './rpc-args.js';

const RPC_DESERIALIZATION_ERROR = -22;
const MAX_PACKAGE_COUNT = 25;
/** Core's fee estimator horizon. */
const MAX_CONF_TARGET = 1008;

interface Method {
  args: ArgSpec[];
  run(d: Devnet, a: unknown[]): unknown;
}

const hash = (name: string): ArgSpec => ({ name, type: 'string', required: true });

/** Rejects undecodable hex before the engine sees it, with Core's per-RPC wording. */
function requireDecodable(hexes: unknown[], single: boolean): string[] {
  return hexes.map((h) => {
    const text = typeof h === 'string' ? h : '';
    try {
      decodeTx(text);
    } catch {
      throw new RpcFault(
        RPC_DESERIALIZATION_ERROR,
        single ? 'TX decode failed. Make sure the tx has at least one input.' : `TX decode failed: ${text} Make sure the tx has at least one input.`,
      );
    }
    return text;
  });
}

function packageSize(list: unknown[], min: number): void {
  if (list.length < min || list.length > MAX_PACKAGE_COUNT) {
    throw new RpcFault(RPC_INVALID_PARAMETER, `Array must contain between ${min} and ${MAX_PACKAGE_COUNT} transactions.`);
  }
}

const METHODS: Record<string, Method> = {
  getblockchaininfo: { args: [], run: (d) => d.rpc.getblockchaininfo() },
  getblockcount: { args: [], run: (d) => d.rpc.getblockcount() },
  // The devnet keeps every transaction by txid (getrawtransaction answers any of them), so it
  // answers as Core does with -txindex=1: the index synced at the tip.
  getindexinfo: {
    args: [{ name: 'index_name', type: 'string', required: false }],
    run: (d, [name]) => (name === undefined || name === 'txindex' ? { txindex: { synced: true, best_block_height: d.rpc.getblockcount() } } : {}),
  },
  getbestblockhash: { args: [], run: (d) => d.rpc.getbestblockhash() },
  getblockhash: {
    args: [{ name: 'height', type: 'number', required: true }],
    run: (d, [h]) => d.rpc.getblockhash(parseInt32(h, 'height')),
  },
  getblockheader: {
    args: [hash('blockhash'), { name: 'verbose', type: 'bool' }],
    run: (d, [h, v]) => d.rpc.getblockheader(parseHash(h, 'hash'), v === undefined ? true : Boolean(v)),
  },
  getblock: {
    args: [hash('blockhash'), { name: 'verbosity', type: 'verbosity' }],
    // Verbosity 3 adds prevouts in Core; the devnet answers it as 2.
    run: (d, [h, v]) => d.rpc.getblock(parseHash(h, 'blockhash'), Math.min(verbosityOf(v, 1), 2)),
  },
  getrawtransaction: {
    args: [hash('txid'), { name: 'verbosity', type: 'verbosity' }, { name: 'blockhash', type: 'string' }],
    run: (d, [t, v, b]) => {
      const txid = parseHash(t, 'parameter 1');
      if (b !== undefined) {
        const blockHash = parseHash(b, 'parameter 3');
        if (d.state.chain.heightOf(blockHash) === undefined) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, 'Block hash not found');
        if (d.state.chain.confirmedTx(txid)?.block.hash !== blockHash) {
          throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, 'No such transaction found in the provided block. Use gettransaction for wallet transactions.');
        }
      }
      return d.rpc.getrawtransaction(txid, verbosityOf(v, 0) >= 1);
    },
  },
  gettxout: {
    args: [hash('txid'), { name: 'n', type: 'number', required: true }, { name: 'include_mempool', type: 'bool' }],
    run: (d, [t, n, m]) => d.rpc.gettxout(parseHash(t, 'txid'), parseInt32(n, 'n'), m === undefined ? true : Boolean(m)),
  },
  scantxoutset: {
    args: [{ name: 'action', type: 'string', required: true }, { name: 'scanobjects', type: 'array' }],
    run: (d, [action, objects]) => scantxoutset(d, action, objects),
  },
  getrawmempool: {
    args: [{ name: 'verbose', type: 'bool' }, { name: 'mempool_sequence', type: 'bool' }],
    run: (d, [v, seq]) => {
      if (v === true && seq === true) throw new RpcFault(RPC_INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
      const txids = d.rpc.getrawmempool(false) as string[];
      return seq === true ? { txids, mempool_sequence: txids.length } : d.rpc.getrawmempool(v === true);
    },
  },
  getmempoolentry: { args: [hash('txid')], run: (d, [t]) => d.rpc.getmempoolentry(parseHash(t, 'parameter 1')) },
  getmempoolinfo: { args: [], run: (d) => d.rpc.getmempoolinfo() },
  getnetworkinfo: {
    args: [],
    run: (d) => {
      const info = d.rpc.getmempoolinfo();
      return {
        version: 290200, subversion: '/Satoshi:29.2.0/', protocolversion: 70016, localservices: '0000000000000c09', localrelay: true,
        timeoffset: 0, networkactive: true, connections: 0, connections_in: 0, connections_out: 0, networks: [],
        relayfee: info.minrelaytxfee, incrementalfee: info.incrementalrelayfee, localaddresses: [], warnings: [],
      };
    },
  },
  estimatesmartfee: {
    args: [{ name: 'conf_target', type: 'number', required: true }, { name: 'estimate_mode', type: 'string' }],
    run: (d, [t, mode]) => {
      const target = parseInt32(t, 'conf_target');
      if (target < 1 || target > MAX_CONF_TARGET) throw new RpcFault(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
      if (mode !== undefined && !['unset', 'economical', 'conservative'].includes(String(mode).toLowerCase())) {
        throw new RpcFault(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
      }
      return d.rpc.estimatesmartfee(target);
    },
  },
  testmempoolaccept: {
    args: [{ name: 'rawtxs', type: 'array', required: true }, { name: 'maxfeerate', type: 'amount' }],
    run: (d, [txs]) => {
      const list = txs as unknown[];
      packageSize(list, 1);
      return d.testMempoolAccept(requireDecodable(list, false));
    },
  },
  sendrawtransaction: {
    // maxfeerate/maxburnamount are accepted; the devnet applies its own configured ceiling.
    args: [{ name: 'hexstring', type: 'string', required: true }, { name: 'maxfeerate', type: 'amount' }, { name: 'maxburnamount', type: 'amount' }],
    run: (d, [hex]) => d.sendRawTransaction(requireDecodable([hex], true)[0]!),
  },
  submitpackage: {
    args: [{ name: 'package', type: 'array', required: true }, { name: 'maxfeerate', type: 'amount' }, { name: 'maxburnamount', type: 'amount' }],
    run: async (d, [pkg]) => {
      const list = pkg as unknown[];
      // Core 29 takes 1 to 25; a bad child-with-parents shape is raised as error -25 (TxRejected).
      packageSize(list, 1);
      return d.submitPackage(requireDecodable(list, false));
    },
  },
  generatetoaddress: {
    args: [{ name: 'nblocks', type: 'number', required: true }, { name: 'address', type: 'string', required: true }, { name: 'maxtries', type: 'number' }],
    run: async (d, [n, address]) => {
      const blocks = parseInt32(n, 'nblocks');
      if (!decodeAddress(String(address), d.network).ok) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, 'Error: Invalid address');
      return blocks <= 0 ? [] : d.mine(blocks, String(address));
    },
  },
  invalidateblock: {
    args: [hash('blockhash')],
    run: async (d, [h]) => {
      const blockHash = parseHash(h, 'blockhash');
      if (d.state.chain.heightOf(blockHash) === undefined) throw new RpcFault(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
      await d.invalidateBlock(blockHash);
      return null;
    },
  },
};

export const DEVNET_RPC_METHODS: readonly string[] = Object.keys(METHODS);

/** The dispatcher for handleJsonRpc: engine errors become Core's error objects. */
export function devnetRpcDispatch(d: Devnet): RpcDispatch {
  return async (method, params) => {
    const m = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (!m) throw new RpcFault(RPC_METHOD_NOT_FOUND, 'Method not found');
    const args = bindArgs(method, m.args, params);
    try {
      return await m.run(d, args);
    } catch (e) {
      if (e instanceof DevnetRpcError) throw new RpcFault(e.code, e.message);
      // The engine's refusals carry Core's code and its `reason, debug` text.
      if (e instanceof TxRejected) throw new RpcFault(e.rpcCode, e.reason);
      throw e;
    }
  };
}
