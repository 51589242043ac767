// The stores a database gets, chosen once when it is opened: on SQLite the adapters that run the hot
// statements directly (sqlite/), on PostgreSQL the Kysely stores (sql/).
import type { InquiryStore } from '../ports/inquiry-store.js';
import type { OAuthStore } from '../ports/oauth-store.js';
import type { Db } from './sql/database.js';
import { sqlInquiryStore } from './sql/inquiry-store.js';
import { sqlOAuthStore } from './sql/oauth-store.js';
import { directSqlite } from './sqlite/direct.js';
import { sqliteInquiryStore } from './sqlite/inquiry-store.js';
import { sqliteOAuthStore } from './sqlite/oauth-store.js';

export function inquiryStore(db: Db): InquiryStore {
  const direct = directSqlite(db);
  return direct ? sqliteInquiryStore(db, direct) : sqlInquiryStore(db);
}

export function oauthStore(db: Db): OAuthStore {
  const direct = directSqlite(db);
  return direct ? sqliteOAuthStore(db, direct) : sqlOAuthStore(db);
}
