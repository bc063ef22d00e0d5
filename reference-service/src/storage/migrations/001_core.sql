-- Core records of the v1 service: organizations, API keys, security frameworks with their
-- evidence, web protection records. JSON columns hold the wire shapes of nested objects.

CREATE TABLE organizations (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  logo TEXT NOT NULL
);

-- Only the SHA-256 of a key is stored. No foreign key on organization_id: keys from
-- configuration are stored at start-up, possibly before the organization exists; a key whose
-- organization does not exist authenticates nobody (see auth.ts).
CREATE TABLE api_keys (
  id              INTEGER PRIMARY KEY,
  key_hash        BLOB NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  organization_id INTEGER,            -- NULL: admin key, valid for every organization
  label           TEXT NOT NULL,
  source          TEXT NOT NULL DEFAULT 'seed' CHECK (source IN ('seed', 'config'))
);

CREATE TABLE security_frameworks (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations (id),
  title           TEXT NOT NULL,
  -- ordered controls without their evidences (those live in `evidences`, keyed by control id)
  controls        TEXT NOT NULL CHECK (json_valid(controls)),
  deleted_at      TEXT,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX security_frameworks_by_organization ON security_frameworks (organization_id, id)
  WHERE deleted_at IS NULL;

-- Keyed by (framework, control id) rather than by a control row, so that evidence outlives the
-- removal of a control by an edit and comes back when a control with that id returns.
CREATE TABLE evidences (
  id            INTEGER PRIMARY KEY,
  framework_id  INTEGER NOT NULL REFERENCES security_frameworks (id),
  control_id    TEXT NOT NULL,
  position      INTEGER NOT NULL,
  files         TEXT NOT NULL CHECK (json_valid(files)),
  details       TEXT NOT NULL,
  datetime      TEXT NOT NULL,
  completed     INTEGER NOT NULL,
  residual_risk REAL NOT NULL,
  user_id       TEXT NOT NULL,
  user_email    TEXT NOT NULL,
  UNIQUE (framework_id, control_id, position)
);

CREATE TABLE web_protection_records (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  organization_id INTEGER NOT NULL REFERENCES organizations (id),
  email           TEXT NOT NULL,
  fqdn            TEXT NOT NULL,
  endpoint        TEXT NOT NULL,
  services        TEXT NOT NULL CHECK (json_valid(services)),
  check_block     TEXT NOT NULL CHECK (json_valid(check_block))
);
CREATE INDEX web_protection_records_by_organization ON web_protection_records (organization_id);
