import { checkAddressRole, type AddressRole } from '../bitcoin/address.js';
import type { Network } from '../config.js';
import { ApiError } from './errors.js';

/**
 * The spec's role rule at the HTTP edge: an invalid address is 400
 * invalid_request; a valid one whose family cannot play the role is 400
 * unsupported_address_type.
 */
export function requireAddressRole(address: string, role: AddressRole, network: Network, field: string): string {
  const res = checkAddressRole(address, role, network);
  if (res.ok) return address;
  if (res.reason === 'wrong_role') {
    throw new ApiError('unsupported_address_type', `${field}: a ${res.family} address cannot act as a ${role} address`, { field });
  }
  throw new ApiError('invalid_request', `${field} is not a valid ${network} address`, { field });
}
