// Which addresses a client ID metadata document may be fetched from: public unicast only (D13, RFC 6890).
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True for a globally reachable unicast address. Refused: loopback, RFC 1918 private, link-local, CGNAT,
 * unspecified, broadcast, multicast, documentation and benchmarking blocks, 6to4, Teredo, NAT64,
 * unique-local, IPv4-mapped IPv6 (which would reach the IPv4 address behind it), and every other block of
 * the IANA special-purpose registries (RFC 6890 section 2.2) that ipaddr.js classifies.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return false;
  // Outside 2000::/3 nothing is assigned for global unicast (RFC 4291 section 2.4).
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}
