// The key a client's requests are counted under: its address, IPv4-mapped IPv6 as IPv4, IPv4 clients
// behind a NAT64 translator as the IPv4 address they come from, and other IPv6 addresses by their /64,
// the smallest block one subscriber usually holds (RFC 6177 section 2).
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Prefixes under which a NAT64 or SIIT translator presents IPv4 clients, the IPv4 address in the last
 * 32 bits: the well-known 64:ff9b::/96 (RFC 6052 section 2.1) and the local-use 64:ff9b:1::/48
 * (RFC 8215), of which a network uses a /96. Counted by their /64, every IPv4 client behind one
 * translator would share one key.
 */
const TRANSLATED = [ipaddr.parseCIDR('64:ff9b::/96'), ipaddr.parseCIDR('64:ff9b:1::/48')] as const;

/**
 * The counter of limit `name` for a client address: the routes' hooks and the contact tool count under
 * this one key, so that a limit they share is one limit (D14).
 */
export const addressLimitKey = (ip: string, name: string): string => `${addressKey(ip)}${name}`;

/**
 * An address as its rate-limit key: IPv4 as it is, IPv4-mapped IPv6 and NAT64-translated IPv6 as the
 * IPv4 address they carry, other IPv6 as its /64; a string that is no address, lower-cased.
 */
export function addressKey(ip: string): string {
  // The common case, answered without parsing: a rate-limited path meets it on every request.
  if (isIPv4(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip.toLowerCase();
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (TRANSLATED.some(([prefix, bits]) => v6.match(prefix, bits))) {
    const [high, low] = [v6.parts[6]!, v6.parts[7]!];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString();
}
