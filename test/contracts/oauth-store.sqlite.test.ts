// The OAuthStore contract on SQLite, the store a node uses (its token insert runs directly), on a real
// database file per test.
import { oauthStoreContract } from './oauth-store.contract.js';
import { onSqlite } from './sqlite-fixture.js';

oauthStoreContract(
  'SQLite',
  onSqlite((engine) => engine.oauth),
);
