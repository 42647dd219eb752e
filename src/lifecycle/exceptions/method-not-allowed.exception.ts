/** The router found routes for the path, none for the method. Its message is empty, as Symfony's is. */
export class MethodNotAllowedException extends Error {
  constructor(readonly allowedMethods: string[]) {
    super('');
    this.name = 'MethodNotAllowedException';
  }
}
