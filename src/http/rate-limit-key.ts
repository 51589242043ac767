// The key a client's requests are counted under: its address, IPv4-mapped IPv6 as IPv4, and other IPv6
// addresses by their /64, the smallest block one subscriber usually holds (RFC 6177 section 2).
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The counter of limit `name` for a client address: the routes' hooks and the contact tool count under
 * this one key, so that a limit they share is one limit (D14).
 */
export const addressLimitKey = (ip: string, name: string): string => `${addressKey(ip)}${name}`;

/**
 * An address as its rate-limit key: IPv4 as it is, IPv4-mapped IPv6 as IPv4, other IPv6 as its /64;
 * a string that is no address, lower-cased.
 */
export function addressKey(ip: string): string {
  // The common case, answered without parsing: a rate-limited path meets it on every request.
  if (isIPv4(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip.toLowerCase();
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString();
}
