/** Emitted for each role checked: by the firewall's access map (subject: the path) and by `@IsGranted` (the controller). */
export class AccessDecidedEvent {
  static readonly NAME = 'security.access_decided';

  constructor(
    readonly attribute: string,
    readonly subject: string | null,
    readonly granted: boolean,
  ) {}
}
