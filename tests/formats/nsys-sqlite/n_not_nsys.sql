-- Some other program's database.
CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);
INSERT INTO moz_places VALUES (1, 'https://example.org/');
