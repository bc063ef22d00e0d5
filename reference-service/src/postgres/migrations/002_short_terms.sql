-- The traffic search's second index, for the terms the first (pg_trgm over search_text) cannot
-- serve: a term of two characters, and one with no run of three ASCII letters or digits (an
-- address, `10.0.0.1`). pg_trgm takes trigrams of words of letters and digits only; over the
-- text's UTF-8 written in hexadecimal, the whole text is one such word whatever the locale, and a
-- term occurs in the text only where its own hexadecimal occurs in the text's. `LIKE '%<hex>%'`
-- asks it for the entries holding every trigram of the term's hexadecimal (two for a two-character
-- ASCII term); strpos() on search_text then decides, as for every term.

-- IMMUTABLE although convert_to() is only STABLE: from the database's own encoding (fixed when the
-- database was created) to UTF-8, its result depends on its argument alone.
CREATE FUNCTION traffic_search_hex(text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT encode(convert_to($1, 'UTF8'), 'hex') $$;

SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX traffic_search_hex ON traffic USING gin (traffic_search_hex(search_text) gin_trgm_ops);
