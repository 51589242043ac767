// The OAuthStore contract on SQLite, the store a node uses (its token insert runs directly), on a real
// database file per test. (The Kysely store's token insert is PostgreSQL's; it is tested there.)
import { oauthStore } from '../../src/adapters/stores.js';
import { oauthStoreContract } from './oauth-store.contract.js';
import { onSqlite } from './sqlite-fixture.js';

oauthStoreContract('SQLite', onSqlite(oauthStore));
