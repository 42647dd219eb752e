import { isMain, runWith } from '../../cli/command-line.js';
import { startUp } from '../../cli/start-up-failure.js';
import { AppConfig } from '../../config/app-config.js';
import { createShopDb } from '../database.factory.js';
import { describeDatabaseTarget, parseDatabaseUrl } from '../database-url.js';
import { DatabaseMigrator } from '../database-migrator.js';
import { seedCatalogue } from '../seed/catalogue.seeder.js';
import type { ShopDb } from '../shop-db.js';

export interface DatabaseCliOptions {
  /** Opens the database (the CLI closes it). */
  open: () => ShopDb;
  /** How the database is named in messages. */
  target: string;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

const USAGE = `Usage: database <command>

Commands:
  migrate  Applies every pending migration
  seed     Applies pending migrations, then loads the demo catalogue (replacing the previous one;
           users, sessions and orders are kept)

Options:
  -h, --help   This help

The database is the one DATABASE_URL names (default sqlite:var/shop.sqlite). From npm:
  npm run db:migrate
  npm run db:seed
`;

/** The shop's database from the command line, without starting the application: `migrate` and `seed`. */
export class DatabaseCli {
  private readonly out: (text: string) => void;
  private readonly err: (text: string) => void;

  constructor(private readonly options: DatabaseCliOptions) {
    this.out = options.out ?? ((text) => void process.stdout.write(text));
    this.err = options.err ?? ((text) => void process.stderr.write(text));
  }

  /** Runs a command line (without node and the script); resolves with the exit code. */
  async run(argv: readonly string[]): Promise<number> {
    if (argv.includes('-h') || argv.includes('--help')) {
      this.out(USAGE);
      return 0;
    }
    const [command, ...extra] = argv;
    if (command === undefined) return this.usageError('No command given.');
    if (extra.length > 0) return this.usageError(`Unexpected argument "${extra[0]}".`);
    switch (command) {
      case 'migrate':
        return this.withDatabase(async (db) => {
          await this.migrate(db);
        });
      case 'seed':
        return this.withDatabase(async (db) => {
          await this.migrate(db);
          const report = await seedCatalogue(db);
          this.out(
            `Seeded ${report.products} products in ${report.categories} categories into ${this.options.target} ` +
              `(${report.inserted} new, ${report.updated} replaced, ${report.removedProducts} removed).\n`,
          );
        });
      default:
        return this.usageError(`Unknown command "${command}".`);
    }
  }

  private async migrate(db: ShopDb): Promise<void> {
    const applied = await new DatabaseMigrator(db, this.options.target).migrateToLatest();
    if (applied.length === 0) this.out(`The database ${this.options.target} is up to date.\n`);
    for (const name of applied) this.out(`Applied migration ${name}.\n`);
  }

  private withDatabase(action: (db: ShopDb) => Promise<void>): Promise<number> {
    return runWith(
      () => this.options.open(),
      (db) => db.destroy(),
      action,
      this.err,
    );
  }

  private usageError(message: string): number {
    this.err(`${message}\n\n${USAGE}`);
    return 2;
  }
}

if (isMain(import.meta.url)) {
  // Loading the application's modules registers their migrations (DatabaseModule.forFeature): `migrate` runs a
  // feature module's tables too, as the application does at start. Imported only when run as a command.
  await import('../../app.module.js');
  // A configuration mistake is one line naming the variable, as the application's own start says it.
  const config = await startUp(async () => AppConfig.fromEnv());
  const cli = new DatabaseCli({
    open: () => createShopDb(config.database.url, { baseDir: config.projectDir }),
    target: describeDatabaseTarget(parseDatabaseUrl(config.database.url, config.projectDir)),
  });
  process.exitCode = await cli.run(process.argv.slice(2));
}
