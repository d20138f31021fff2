/**
 * What the market checks of its chain at start (docs/operating.md): each node's version, network
 * and readiness, the settings it needs (txindex), and the UTXO source (UTXO_SOURCE) answering. One
 * log line per component says what runs; a missing or unfit one is logged as an error with what to
 * do, and the market starts anyway (`/readyz` answers 503 until it is fixed), except for a node on
 * another network than NETWORK: that is refused, since every address and signature would be for the
 * wrong chain. A node that is only catching up (and a Counterparty-backed UTXO source waiting for
 * it) is a warning: it passes by itself, as it does after every restart of the node.
 */
import type { Chain, NodeDescription } from './ports.js';

export interface StartupLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export interface ComponentCheck {
  component: 'bitcoin' | 'counterparty' | 'utxos';
  ok: boolean;
  /** The node's description, when it answered. */
  node?: NodeDescription;
  /** What the UTXO source said, or why a component did not answer. */
  detail?: string;
  problems: string[];
  /** Not fit only because it catches up (no problem of its own): a warning, not an error. */
  waiting?: true;
}

export class ChainNetworkMismatch extends Error {}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 300);

async function describe(component: 'bitcoin' | 'counterparty', run: (() => Promise<NodeDescription>) | undefined, network: string): Promise<ComponentCheck> {
  if (!run) return { component, ok: true, detail: 'in-process devnet', problems: [] };
  try {
    const node = await run();
    const problems = [...node.problems];
    if (node.network !== network) problems.unshift(`network ${node.network}, but NETWORK=${network}`);
    return { component, ok: problems.length === 0 && node.ready, node, problems, ...(problems.length === 0 && !node.ready ? { waiting: true as const } : {}) };
  } catch (e) {
    return { component, ok: false, detail: `unreachable: ${message(e)}`, problems: [`unreachable: ${message(e)}`] };
  }
}

/** Runs every check and logs one line per component; throws ChainNetworkMismatch on a node of another network. */
export async function checkChainAtStart(chain: Chain, network: string, logger: StartupLogger): Promise<ComponentCheck[]> {
  const [bitcoin, counterparty, utxos] = await Promise.all([
    describe('bitcoin', chain.bitcoin.describeNode?.bind(chain.bitcoin), network),
    describe('counterparty', chain.counterparty.describeNode?.bind(chain.counterparty), network),
    chain.utxos.probe().then(
      (detail): ComponentCheck => ({ component: 'utxos', ok: true, detail, problems: [] }),
      (e: unknown): ComponentCheck => ({ component: 'utxos', ok: false, detail: message(e), problems: [`${chain.utxos.kind} does not answer: ${message(e)}`] }),
    ),
  ]);
  // A Counterparty-backed UTXO source refused while Counterparty Core catches up waits with it.
  if (!utxos.ok && counterparty.waiting && chain.utxos.kind === 'counterparty-core') utxos.waiting = true;
  const checks = [bitcoin, counterparty, utxos];
  for (const c of checks) {
    const fields = {
      component: c.component,
      ...(c.component === 'utxos' ? { source: chain.utxos.kind, sees_mempool: chain.utxos.seesMempool } : { kind: chain[c.component].kind }),
      ...(c.node ? { version: c.node.version, network: c.node.network, ready: c.node.ready, notes: c.node.notes } : {}),
      ...(c.detail ? { detail: c.detail } : {}),
      ...(c.problems.length ? { problems: c.problems } : {}),
    };
    if (c.ok) logger.info(fields, `chain check: ${c.component} ok`);
    else if (c.waiting) logger.warn(fields, `chain check: ${c.component} is catching up${c.node ? ` (${c.node.notes.join(', ')})` : ''} (the market starts; /readyz answers 503 until it has)`);
    else logger.error(fields, `chain check: ${c.component} is not fit: ${c.problems.join('; ')} (the market starts; /readyz answers 503 until this is fixed)`);
  }
  const wrong = checks.find((c) => c.node && c.node.network !== network);
  if (wrong) throw new ChainNetworkMismatch(`${wrong.component} node is on ${wrong.node!.network}, but NETWORK=${network}: refusing to start`);
  return checks;
}
