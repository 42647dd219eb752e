import { throttledClient } from './client-address.js';

describe('throttledClient', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['127.0.0.1', '127.0.0.1'],
    ['', 'unknown'],
    ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3:8d3::/64'],
    ['2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
    ['2001:DB8:0:1::1', '2001:db8:0:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3::', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:192.0.2.1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
  ])('counts %s as %s', (ip, client) => {
    expect(throttledClient(ip)).toBe(client);
  });

  it('counts every address of one /64 as one client, and neighbouring networks apart', () => {
    const addresses = [
      '2001:db8:aa:bb::1',
      '2001:db8:aa:bb:ffff:ffff:ffff:ffff',
      '2001:db8:aa:bb:1234:5678:9abc:def0',
      '2001:db8:00aa:00bb::2',
    ];
    expect(new Set(addresses.map(throttledClient)).size).toBe(1);
    expect(throttledClient('2001:db8:aa:bc::1')).not.toBe(throttledClient('2001:db8:aa:bb::1'));
  });
});
