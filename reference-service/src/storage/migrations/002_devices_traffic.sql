-- Protection devices and their traffic log, with the trigram index behind the traffic search.

CREATE TABLE devices (
  id               INTEGER PRIMARY KEY,
  organization_id  INTEGER NOT NULL REFERENCES organizations (id),
  atb_key          TEXT NOT NULL,
  type             TEXT NOT NULL,
  email            TEXT NOT NULL,
  device_id        TEXT NOT NULL,
  endpoint         TEXT NOT NULL,
  private_ip       TEXT NOT NULL,
  -- the wire shapes, services in the order the device lists them
  services         TEXT NOT NULL CHECK (json_valid(services)),
  check_block      TEXT NOT NULL CHECK (json_valid(check_block)),
  plugin           TEXT NOT NULL CHECK (json_valid(plugin)),
  -- 1 while every traffic entry of the device was appended no earlier (by date_time) than the
  -- ones before it, so that id order is date_time order and a search can walk the index in id
  -- order and stop after a page instead of sorting every match. Cleared by a trigger, never set.
  traffic_in_order INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX devices_by_organization ON devices (organization_id, id);

-- One row per service of a device: the `services` filter of the device list is an index lookup
-- rather than a JSON scan of every device.
CREATE TABLE device_services (
  service   TEXT NOT NULL,
  device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  PRIMARY KEY (service, device_id)
) WITHOUT ROWID;

-- Append-only: entries are inserted (the seeding, the simulator) and go away only with their
-- device. Small columns first: SQLite decodes a record from the front, so filters and sort keys
-- are read without touching the long texts.
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
  -- traffic-search.ts). A search term holds no white space, so it occurs in this text exactly
  -- when it occurs in one of the fields.
  search_text TEXT NOT NULL
);

-- One index per order of the traffic list, each led by the device and ending with id (the tie
-- breaker), so that a page is a walk along an index in either direction rather than a sort. The
-- default order's index also carries `action`, so that the actions filter is checked there (and
-- the total of an actions filter comes from traffic_counts, so no index leads with action).
CREATE INDEX traffic_by_date_time ON traffic (device_id, date_time, id, action);
CREATE INDEX traffic_by_id        ON traffic (device_id, id);
CREATE INDEX traffic_by_type      ON traffic (device_id, type, id);
CREATE INDEX traffic_by_src_ip    ON traffic (device_id, src_ip, id);
CREATE INDEX traffic_by_dest_ip   ON traffic (device_id, dest_ip, id);
CREATE INDEX traffic_by_dest_port ON traffic (device_id, dest_port, id);

-- Entries per device and action ('' for none): the total of an unfiltered or actions-only list
-- without counting a million index entries.
CREATE TABLE traffic_counts (
  device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
  action    TEXT NOT NULL,
  n         INTEGER NOT NULL,
  PRIMARY KEY (device_id, action)
) WITHOUT ROWID;

-- The search index over search_text: which trigrams (three-character substrings) each entry
-- holds, without their positions (detail = none), which makes it several times smaller and faster
-- to build than a positional index. A query asks for the entries that hold some trigrams of each
-- term, and instr() on search_text then decides: the index narrows, the exact check answers. The
-- text is lower-cased before it gets here, so the tokenizer need not fold case.
CREATE VIRTUAL TABLE traffic_search USING fts5 (
  search_text,
  content = 'traffic',
  content_rowid = 'id',
  detail = none,
  columnsize = 0,                     -- no per-entry token counts: nothing ranks the matches
  tokenize = 'trigram case_sensitive 1'
);

-- The triggers keep the index, the counts and the order flag in step with every insert (the bulk
-- seeding drops them and builds the same state in one pass; see traffic-bulk.ts).
CREATE TRIGGER traffic_search_insert AFTER INSERT ON traffic BEGIN
  INSERT INTO traffic_search (rowid, search_text) VALUES (new.id, new.search_text);
END;

CREATE TRIGGER traffic_search_delete AFTER DELETE ON traffic BEGIN
  INSERT INTO traffic_search (traffic_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;

CREATE TRIGGER traffic_count_insert AFTER INSERT ON traffic BEGIN
  INSERT INTO traffic_counts (device_id, action, n) VALUES (new.device_id, coalesce(new.action, ''), 1)
    ON CONFLICT (device_id, action) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER traffic_count_delete AFTER DELETE ON traffic BEGIN
  UPDATE traffic_counts SET n = n - 1 WHERE device_id = old.device_id AND action = coalesce(old.action, '');
END;

CREATE TRIGGER traffic_order_check AFTER INSERT ON traffic
  WHEN EXISTS (SELECT 1 FROM traffic p WHERE p.device_id = new.device_id AND p.date_time > new.date_time)
BEGIN
  UPDATE devices SET traffic_in_order = 0 WHERE id = new.device_id AND traffic_in_order = 1;
END;

CREATE TRIGGER traffic_immutable BEFORE UPDATE ON traffic BEGIN
  SELECT RAISE (ABORT, 'traffic entries are append-only');
END;
