-- Each version of final standings whole, as rankd.EncodeFinal encodes it, read in one go: a board of 10,000
-- teams decodes in tens of milliseconds, where the JSON of its 20,000 rows took most of a second. NULL in
-- versions built before; final_rows still holds every version's rows, for people querying the database.
ALTER TABLE final_versions ADD COLUMN encoded bytea;
