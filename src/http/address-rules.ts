import { checkAddressRole, decodeAddress, scriptToAddress, type AddressRole } from '../bitcoin/address.js';
import type { Network } from '../config.js';
import { ApiError } from './errors.js';

/**
 * The spec's role rule at the HTTP edge: an invalid address is 400
 * invalid_request; a valid one whose family cannot play the role is 400
 * unsupported_address_type. An address must be spelled as its script spells it (bech32 in
 * lower case): Counterparty keys balances by the address string and the market compares
 * addresses as strings (sessions, owners, self-trade), so an upper-case bech32 spelling of the
 * same script would be another holder and another owner.
 */
export function requireAddressRole(address: string, role: AddressRole, network: Network, field: string): string {
  const res = checkAddressRole(address, role, network);
  if (res.ok) {
    const d = decodeAddress(address, network);
    const canonical = d.ok ? scriptToAddress(d.script, network) : undefined;
    if (canonical !== undefined && canonical !== address) {
      throw new ApiError('invalid_request', `${field}: spell the address as ${canonical} (bech32 addresses are written in lower case)`, { field, canonical_address: canonical });
    }
    return address;
  }
  if (res.reason === 'wrong_role') {
    throw new ApiError('unsupported_address_type', `${field}: a ${res.family} address cannot act as a ${role} address`, { field });
  }
  throw new ApiError('invalid_request', `${field} is not a valid ${network} address`, { field });
}
