/**
 * A client's malformed or suspicious request. The kernel answers any of these with a 400
 * BadRequestHttpException that wraps it and repeats its message, wherever it is thrown.
 */
export abstract class RequestException extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
