/**
 * V8's "unexpected token" message, which quotes the body: the whole of a short one (`"…"`), else ten characters on
 * either side of the error (`..."…"...`), from the start (`"…"...`) or to the end (`..."…"`).
 */
const QUOTING = /^Unexpected token '[\s\S]{1,2}', (\.\.\.)?"([\s\S]*)"(\.\.\.)? is not valid JSON$/;
/** The characters V8 quotes on either side of the error (its kMaxContextCharacters). */
const CONTEXT = 10;

/**
 * The JSON parser's reason for refusing a request body, without the body's text: V8 quotes the body around the error
 * (`Unexpected token 'S', ..."password":SEKRIT"... is not valid JSON`), which would carry a password into the
 * exception, its log line, the profile and the error page. The position is kept (worked out from the excerpt's
 * place in the body, when the body is known), and messages that quote nothing are kept as they are.
 */
export function jsonSyntaxReason(message: string, body?: string): string {
  if (!message.includes('"')) return message;
  const quoted = QUOTING.exec(message);
  if (!quoted) return 'Not valid JSON';
  const position =
    body === undefined
      ? -1
      : errorPosition(body, quoted[2]!, quoted[1] !== undefined, quoted[3] !== undefined, message);
  return position >= 0 ? `Unexpected token in JSON at position ${position}` : 'Unexpected token in JSON';
}

/** Where the error is in `body`, from the excerpt V8 quoted and the side(s) it cut; -1 when it cannot be told. */
function errorPosition(body: string, excerpt: string, cutBefore: boolean, cutAfter: boolean, message: string): number {
  if (cutBefore && cutAfter) {
    const at = body.indexOf(excerpt);
    return at === -1 ? -1 : at + CONTEXT;
  }
  if (cutAfter) return excerpt.length - CONTEXT;
  if (cutBefore) return body.length - excerpt.length + CONTEXT;
  // A short body, quoted whole: its first occurrence of the unexpected character.
  const token = message.slice("Unexpected token '".length, message.indexOf("', "));
  return excerpt === body ? body.indexOf(token) : -1;
}
