-- Final standings: every version a finalization built, and the active one.

-- final_versions holds each version of a contest's final standings: built from the log up to pos.
CREATE TABLE final_versions (
	contest_id TEXT    NOT NULL,
	version    INTEGER NOT NULL CHECK (version > 0),
	pos        INTEGER NOT NULL CHECK (pos >= 0),
	built_at   INTEGER NOT NULL,
	awards     TEXT    NOT NULL, -- JSON: the public view's awards
	PRIMARY KEY (contest_id, version)
) STRICT;

-- final_rows holds the rows of a version, per view ('jury', 'public') in board order. The columns are for
-- people querying the database; data is the row, every cell included, as rankd reads it back (JSON).
CREATE TABLE final_rows (
	contest_id TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	view       TEXT    NOT NULL,
	position   INTEGER NOT NULL,
	rank       INTEGER NOT NULL,
	team_id    TEXT    NOT NULL,
	solved     INTEGER NOT NULL,
	penalty    INTEGER NOT NULL,
	score      REAL    NOT NULL,
	data       TEXT    NOT NULL,
	PRIMARY KEY (contest_id, version, view, position),
	FOREIGN KEY (contest_id, version) REFERENCES final_versions (contest_id, version)
) STRICT;

-- final_active names the version readers get; switching it is one update.
CREATE TABLE final_active (
	contest_id TEXT    NOT NULL PRIMARY KEY,
	version    INTEGER NOT NULL,
	FOREIGN KEY (contest_id, version) REFERENCES final_versions (contest_id, version)
) STRICT;
