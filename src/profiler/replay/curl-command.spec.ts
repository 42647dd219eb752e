import type { RequestData } from '../collectors/request.collector.js';
import { curlCommand, shellQuote } from './curl-command.js';

const request = (headers: Record<string, string>, body: RequestData['body'] = null) =>
  ({ headers, body }) as unknown as RequestData;

describe('curlCommand', () => {
  it('writes a GET with its headers, leaving to curl what curl sets, compressed when the client accepted it', () => {
    const { command, masked } = curlCommand(
      'GET',
      'http://shop.test/products?q=tea',
      request({ host: 'shop.test', accept: 'text/html', 'accept-encoding': 'gzip, br', connection: 'close' }),
    );
    expect(command).toBe("curl 'http://shop.test/products?q=tea' \\\n  -H 'accept: text/html' \\\n  --compressed");
    expect(masked).toEqual([]);
  });

  it('keeps masked values masked and says so first', () => {
    const { command, masked } = curlCommand(
      'GET',
      'http://shop.test/orders?token=******',
      request({ authorization: '******', cookie: 'SHOPSESSID=******' }),
    );
    expect(masked).toEqual(['authorization', 'cookie', '?token']);
    expect(command.split('\n')).toEqual([
      '# Masked by the profiler (put the real values back): authorization, cookie, ?token',
      "curl 'http://shop.test/orders?token=******' \\",
      "  -H 'authorization: ******' \\",
      "  -H 'cookie: SHOPSESSID=******'",
    ]);
  });

  it('writes HEAD with --head, and a form body back as a form, its secret fields masked', () => {
    expect(curlCommand('HEAD', 'http://shop.test/', request({})).command).toBe("curl --head 'http://shop.test/'");
    const form = curlCommand(
      'POST',
      'http://shop.test/login',
      request(
        { 'content-type': 'application/x-www-form-urlencoded' },
        {
          contentType: 'application/x-www-form-urlencoded',
          length: 40,
          parsed: { email: 'a@b.c', password: '******' },
          excerpt: null,
        },
      ),
    );
    expect(form.command.split('\n').at(-1)).toBe("  --data-raw 'email=a%40b.c&password=******'");
    expect(form.command.split('\n')[1]).toBe("curl -X POST 'http://shop.test/login' \\");
    expect(form.masked).toEqual(['body']);
  });

  it('writes a JSON body as JSON, and says when a raw body was cut', () => {
    const json = curlCommand(
      'PATCH',
      'http://shop.test/api/cart/lines/1',
      request(
        { 'content-type': 'application/json' },
        { contentType: 'application/json', length: 14, parsed: { quantity: 2 }, excerpt: null },
      ),
    );
    expect(json.command.endsWith(`--data-raw '{"quantity":2}'`)).toBe(true);
    const cut = curlCommand(
      'POST',
      'http://shop.test/upload',
      request({}, { contentType: 'text/plain', length: 5000, parsed: null, excerpt: 'x'.repeat(2000) }),
    );
    expect(cut.bodyCut).toBe(true);
    expect(cut.command.split('\n')[0]).toBe('# The body is cut: the profiler kept its first 2000 of 5000 bytes');
  });

  it('quotes for the shell, whatever the value holds', () => {
    expect(shellQuote(`it's $(rm -rf) "x"`)).toBe(`'it'\\''s $(rm -rf) "x"'`);
  });
});
