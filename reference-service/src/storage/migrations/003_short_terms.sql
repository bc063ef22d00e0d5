-- What the traffic search needs beside the trigram index to serve a two-character term (see
-- trigramsAround in traffic-search.ts): a term of two characters is found as the union of the
-- index's lists of every trigram that holds it, which takes the alphabet the texts are written in.

-- The characters other than ASCII that some search_text holds (ASCII is taken as a whole). Only
-- grows: a character kept after its entries went away costs one more trigram to look up, nothing
-- more. Kept by the service as it appends entries (a trigger cannot take a text apart).
CREATE TABLE traffic_search_chars (
  ch TEXT PRIMARY KEY
) WITHOUT ROWID;

-- Texts already stored: those whose UTF-8 is longer than their characters hold one (or a NUL
-- character, at which length() stops counting; such a text is among the next index's anyway).
INSERT OR IGNORE INTO traffic_search_chars (ch)
  WITH RECURSIVE chars (text, i) AS (
    SELECT search_text, 1 FROM traffic WHERE length(CAST(search_text AS BLOB)) > length(search_text)
    UNION ALL
    SELECT text, i + 1 FROM chars WHERE i < length(CAST(text AS BLOB))
  )
  SELECT substr(text, i, 1) FROM chars WHERE unicode(substr(text, i, 1)) > 127;

-- The entries the union of trigram lists cannot find: a text shorter than three characters has no
-- trigram, and one holding a NUL character may hold the term only beside it (a trigram that cannot
-- be asked for). Almost always empty; a search of a two-character term checks these directly.
CREATE INDEX traffic_unindexed ON traffic (device_id, id)
  WHERE length(search_text) < 3 OR instr(search_text, char(0)) > 0;
