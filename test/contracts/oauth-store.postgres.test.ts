// The OAuthStore contract on PostgreSQL: one database for the file, emptied between tests.
import { oauthStoreContract } from './oauth-store.contract.js';
import { contractOnPostgres } from './postgres-fixture.js';

await contractOnPostgres('test/contracts/oauth-store.postgres.test.ts', (engine) => engine.oauth, oauthStoreContract);
