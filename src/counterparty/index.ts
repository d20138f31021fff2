/** Counterparty, pure: asset names, message encoding, the input-0 rule, the attach fee, ledger rules. */
export * from './asset-names.js';
export * from './arc4.js';
export * from './message.js';
export * from './attach-detach.js';
export * from './sighash-flag.js';
export * from './attach-fee.js';
export * from './tx-info.js';
export * from './ledger-events.js';
export * from './ledger-rules.js';
export { readScript, opReturnScript, type ScriptItem } from './script-reader.js';
