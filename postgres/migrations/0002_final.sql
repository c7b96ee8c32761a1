-- Final standings: every version a finalization built, and the active one.

-- final_versions holds each version of a contest's final standings: built from the log up to pos.
CREATE TABLE final_versions (
	contest_id text COLLATE "C" NOT NULL,
	version    bigint NOT NULL CHECK (version > 0),
	pos        bigint NOT NULL CHECK (pos >= 0),
	built_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
	awards     jsonb NOT NULL, -- the public view's awards
	PRIMARY KEY (contest_id, version)
);

-- final_rows holds the rows of a version, per view ('jury', 'public') in board order. The columns are for
-- people querying the database; data is the row, every cell included, as rankd reads it back.
CREATE TABLE final_rows (
	contest_id text COLLATE "C" NOT NULL,
	version    bigint NOT NULL,
	view       text NOT NULL,
	position   integer NOT NULL,
	rank       integer NOT NULL,
	team_id    text COLLATE "C" NOT NULL,
	solved     integer NOT NULL,
	penalty    bigint NOT NULL,
	score      double precision NOT NULL,
	data       jsonb NOT NULL,
	PRIMARY KEY (contest_id, version, view, position),
	FOREIGN KEY (contest_id, version) REFERENCES final_versions (contest_id, version)
);

-- final_active names the version readers get; switching it is one update.
CREATE TABLE final_active (
	contest_id text COLLATE "C" NOT NULL PRIMARY KEY,
	version    bigint NOT NULL,
	FOREIGN KEY (contest_id, version) REFERENCES final_versions (contest_id, version)
);
