/** Emitted once a request logged its user out (the session emptied, the remember-me cookie revoked). */
export class LoggedOutEvent {
  static readonly NAME = 'security.logged_out';
}
