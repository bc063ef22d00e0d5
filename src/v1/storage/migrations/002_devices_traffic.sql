-- Protection devices and their traffic log, with the trigram index behind the traffic search.

CREATE TABLE devices (
  id              INTEGER PRIMARY KEY,
  organization_id INTEGER NOT NULL REFERENCES organizations (id),
  atb_key         TEXT NOT NULL,
  type            TEXT NOT NULL,
  email           TEXT NOT NULL,
  device_id       TEXT NOT NULL,
  endpoint        TEXT NOT NULL,
  private_ip      TEXT NOT NULL,
  -- the wire shapes, in the order the device lists them
  services        TEXT NOT NULL CHECK (json_valid(services)),
  check_block     TEXT NOT NULL CHECK (json_valid(check_block)),
  plugin          TEXT NOT NULL CHECK (json_valid(plugin))
);
CREATE INDEX devices_by_organization ON devices (organization_id, id);

-- One row per service of a device: the `services` filter of the device list is an index lookup
-- rather than a JSON scan of every device.
CREATE TABLE device_services (
  service   TEXT NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  PRIMARY KEY (service, device_id)
) WITHOUT ROWID;

-- Small columns first: SQLite decodes a record from the front, so filters and sort keys are
-- read without touching the long log line.
CREATE TABLE traffic (
  id          INTEGER PRIMARY KEY,
  device_id   INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  date_time   TEXT NOT NULL,
  action      TEXT,                   -- extra.action lower-cased (the `actions[]` filter); NULL without one
  type        TEXT NOT NULL,
  src_ip      TEXT NOT NULL,
  dest_ip     TEXT NOT NULL,
  dest_port   TEXT NOT NULL,
  log_message TEXT NOT NULL,
  extra       TEXT NOT NULL,          -- the JSON object exactly as served
  -- What the search matches: the searchable fields, lower-cased and joined by newlines (see
  -- traffic-search.ts). A search term never holds white space, so it occurs in this text exactly
  -- when it occurs in one of the fields.
  search_text TEXT NOT NULL
);

-- One index per order of the traffic list, each led by the device and ending with id (the tie
-- breaker), so that a page is a range walk in either direction rather than a sort. The default
-- order's index also carries `action`, so that the actions filter is checked without reading rows.
CREATE INDEX traffic_by_date_time ON traffic (device_id, date_time, id, action);
CREATE INDEX traffic_by_id        ON traffic (device_id, id);
CREATE INDEX traffic_by_type      ON traffic (device_id, type, id);
CREATE INDEX traffic_by_src_ip    ON traffic (device_id, src_ip, id);
CREATE INDEX traffic_by_dest_ip   ON traffic (device_id, dest_ip, id);
CREATE INDEX traffic_by_dest_port ON traffic (device_id, dest_port, id);
-- counts and pages of one action
CREATE INDEX traffic_by_action    ON traffic (device_id, action, date_time, id);

-- The search index over search_text: which trigrams (three-character substrings) each entry
-- holds, without their positions (detail = none), which makes it several times smaller and faster
-- to build than a positional index. A query asks for entries holding every trigram of a term and
-- then checks the term against search_text, so the index narrows and instr() decides. The text
-- is lower-cased before it gets here, so the tokenizer need not fold case.
CREATE VIRTUAL TABLE traffic_search USING fts5 (
  search_text,
  content = 'traffic',
  content_rowid = 'id',
  detail = none,
  tokenize = 'trigram case_sensitive 1'
);

-- Keep the index in step with the table (the seeding drops the insert trigger and rebuilds the
-- index in one pass instead).
CREATE TRIGGER traffic_search_insert AFTER INSERT ON traffic BEGIN
  INSERT INTO traffic_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER traffic_search_delete AFTER DELETE ON traffic BEGIN
  INSERT INTO traffic_search (traffic_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER traffic_search_update AFTER UPDATE OF search_text ON traffic BEGIN
  INSERT INTO traffic_search (traffic_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
  INSERT INTO traffic_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
