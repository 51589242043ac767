// Modes of what holds personal data (D17): the database and the outbox, the owner's alone.
export const PRIVATE_FOLDER = 0o700;
export const PRIVATE_FILE = 0o600;
