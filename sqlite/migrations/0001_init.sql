-- The first schema of the embedded store. Times are unix nanoseconds (UTC); ids are the CCS ids as given.
--
-- The log is the only thing Append writes, and it writes it in segments: one row for the entries of one
-- call, whatever their number. What deduplication and the submissions list need (each entry's object,
-- token, hash and submission fields) is in each segment too, apart from the entries' data, and the store
-- keeps it in memory, read from the log once per contest and kept up to date by Append.

-- contests holds every contest that has a log; a contest gets its row with its first stored entry.
CREATE TABLE contests (
	key        INTEGER PRIMARY KEY, -- the rowid: what segments call the contest
	id         TEXT    NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
) STRICT;

-- segments is the log: append-only, positions 1, 2, 3, ... per contest. A segment holds the consecutive
-- entries first_pos .. first_pos+count-1 of a contest, stored by one call at stored_at. keys holds what the
-- store's index needs of each entry (object, token, hash, submission fields), data each entry's data; see
-- segment.go for their encoding. keys comes first, so that reading it does not read the data.
CREATE TABLE segments (
	contest   INTEGER NOT NULL REFERENCES contests (key),
	first_pos INTEGER NOT NULL CHECK (first_pos > 0),
	count     INTEGER NOT NULL CHECK (count > 0),
	stored_at INTEGER NOT NULL,
	keys      BLOB    NOT NULL,
	data      BLOB    NOT NULL
) STRICT;

-- A contest's segments in log order. A rowid table with this index rather than a table clustered by it:
-- segments are large, and SQLite keeps large rows best in a rowid table.
CREATE UNIQUE INDEX segments_pos ON segments (contest, first_pos);

-- checkpoints holds the latest board checkpoint of each contest.
CREATE TABLE checkpoints (
	contest_id TEXT    NOT NULL PRIMARY KEY,
	pos        INTEGER NOT NULL CHECK (pos >= 0),
	data       BLOB    NOT NULL,
	saved_at   INTEGER NOT NULL
) STRICT;

-- tokens holds access tokens issued through the API, by the digest of their secret: the secret itself is
-- never stored, so a copy of the file grants nothing.
CREATE TABLE tokens (
	digest     TEXT    NOT NULL PRIMARY KEY, -- hex SHA-256 of the secret
	role       TEXT    NOT NULL,
	contest_id TEXT    NOT NULL DEFAULT '',
	team_id    TEXT    NOT NULL DEFAULT '',
	name       TEXT    NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
) STRICT;
