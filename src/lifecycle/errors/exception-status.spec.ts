import { NotFoundException } from '@nestjs/common';
import { BadRequestHttpException } from '../exceptions/bad-request-http.exception.js';
import { KernelHttpException } from '../exceptions/kernel-http.exception.js';
import { MalformedRequestException } from '../exceptions/malformed-request.exception.js';
import { SuspiciousOperationException } from '../exceptions/suspicious-operation.exception.js';
import { clientMessageOf } from './exception-status.js';

describe('clientMessageOf', () => {
  it("states a request exception's message: it describes the client's own input", () => {
    const suspicious = new SuspiciousOperationException('Invalid Host "bad host!!".');
    expect(clientMessageOf(new BadRequestHttpException(suspicious.message, suspicious))).toBe(
      'Invalid Host "bad host!!".',
    );
    const malformed = new MalformedRequestException('The JSON body is nested deeper than 64 levels.');
    expect(clientMessageOf(new BadRequestHttpException('Bad Request', malformed))).toBe(
      'The JSON body is nested deeper than 64 levels.',
    );
  });

  it('states nothing for errors that are not about the request, nor for a request exception under a server error', () => {
    expect(clientMessageOf(new BadRequestHttpException('Only staff may see the ledger'))).toBeUndefined();
    expect(clientMessageOf(new NotFoundException('No route found for "GET /x"'))).toBeUndefined();
    expect(clientMessageOf(new Error('The stock ledger is out of balance'))).toBeUndefined();
    const hidden = new MalformedRequestException('looks like the client, is the server');
    expect(clientMessageOf(new KernelHttpException(500, 'Internal', hidden))).toBeUndefined();
  });
});
