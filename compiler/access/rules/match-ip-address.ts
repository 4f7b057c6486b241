// matchIpAddress: a caller whose address is in one of the CIDR blocks.
import { BlockList } from 'node:net';
import { literal } from '../../sql/ident.ts';
import { defineRule } from './def.ts';

export const matchIpAddress = defineRule<{ type: 'matchIpAddress'; cidrs: string[] }>({
  kind: 'identity',
  summary: "a caller whose address is in one of the CIDR blocks",
  schema: { additionalProperties: false, required: ['cidrs'], properties: { type: { const: 'matchIpAddress' }, cidrs: { $ref: '#/definitions/nonEmptyStrings' } } },
  check({ ctx, rule, at }) {
    rule.cidrs.forEach((c, i) => { if (!validCidr(c)) ctx.fail(`${at}/cidrs/${i}`, 'Invalid CIDR', `"${c}" is not an IPv4 or IPv6 CIDR block`); });
  },
  sql: (rule) => `(SELECT auth.ip() <<= ANY (ARRAY[${rule.cidrs.map(literal).join(', ')}]::cidr[]))`,
});

function validCidr(cidr: string): boolean {
  const [addr, bits, ...rest] = cidr.split('/');
  if (!addr || bits === undefined || rest.length || !/^\d{1,3}$/.test(bits)) return false;
  const type = addr.includes(':') ? 'ipv6' : 'ipv4';
  try {
    new BlockList().addSubnet(addr, Number(bits), type);
    return true;
  } catch {
    return false;
  }
}
