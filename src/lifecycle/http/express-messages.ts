import type express from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';

/** The request and response classes Node's HTTP server builds its objects with (`createServer` options). */
export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Node's request and response classes, with an Express app's request and response objects as their prototypes, for
 * `http.createServer(messageClasses(app), app)`: the server then builds each request and response with the
 * prototype Express gives them, and Express's `Object.setPrototypeOf(req, app.request)` (and `res`), which it runs
 * on every request, finds nothing to change. Changing the prototype of a live object costs V8 its inline caches for
 * that object: measured on Node 20, Express serving a 2 KB page took 126 µs of CPU a request with its own
 * prototype swap and 45–51 µs with these classes (raw `node:http`: 21 µs).
 *
 * Node's constructors are plain functions, called on the new object as a subclass's would be. Not through
 * `Reflect.construct(IncomingMessage, args, wrapper)`, which works for classes too but took 176 µs a request (V8
 * derives the object's map from a foreign new.target on a slow path). Should a Node release make them classes
 * (not callable without `new`), undefined: the server is built as Nest builds it.
 */
export function messageClasses(app: express.Express): MessageClasses | undefined {
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return undefined;
  type Construct = (this: unknown, ...args: unknown[]) => void;
  const Request = function (this: unknown, ...args: unknown[]) {
    (IncomingMessage as unknown as Construct).apply(this, args);
  } as unknown as typeof IncomingMessage;
  Request.prototype = app.request as unknown as IncomingMessage;
  const Response = function (this: unknown, ...args: unknown[]) {
    (ServerResponse as unknown as Construct).apply(this, args);
  } as unknown as typeof ServerResponse;
  Response.prototype = app.response as unknown as ServerResponse;
  return { IncomingMessage: Request, ServerResponse: Response };
}

function isClass(fn: unknown): boolean {
  return typeof fn === 'function' && /^class\b/.test(Function.prototype.toString.call(fn));
}
